/** A boolean switch; read-pretty says yes or no (entity.value.yes / entity.value.no). */
import { PreviewText } from '@formily/antd-v5';
import { connect, mapProps, mapReadPretty } from '@formily/react';
import { Switch as AntdSwitch } from 'antd';
import { useTranslation } from 'react-i18next';

function YesNo({ value }: { value?: boolean | null }) {
  const { t } = useTranslation();
  const text = value === undefined || value === null ? undefined : t(value ? 'entity.value.yes' : 'entity.value.no');
  return <PreviewText.Input value={text} />;
}

export const Switch = connect(AntdSwitch, mapProps({ value: 'checked', onInput: 'onChange' }), mapReadPretty(YesNo));

export default Switch;
