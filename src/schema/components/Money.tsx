/**
 * An amount in CNY (view hint `money`): edited with two decimals after the yuan sign;
 * read-pretty in the language's number format (shared/format formatMoney, Intl), e.g.
 * "¥1,234.50" in Chinese and English, "1234,50 ¥" in Spanish.
 */
import { PreviewText } from '@formily/antd-v5';
import { connect, mapReadPretty } from '@formily/react';
import { InputNumber, type InputNumberProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatMoney } from '../../shared/format';

function MoneyInput(props: InputNumberProps<number>) {
  return <InputNumber<number> precision={2} prefix="¥" style={{ width: '100%' }} {...props} />;
}

function MoneyText({ value }: { value?: number | string | null }) {
  const { i18n } = useTranslation();
  // PreviewText shows its placeholder ("-" unless configured) for no value.
  return <PreviewText.Input value={formatMoney(value, i18n.language) || undefined} />;
}

export const Money = connect(MoneyInput, mapReadPretty(MoneyText));

export default Money;
