/**
 * A date-time value as the API has it (an ISO 8601 string): picked with antd's
 * DatePicker, sent back as ISO, shown read-pretty as {y}-{m}-{d} {h}:{i}:{s}
 * (spec section 9, src/shared/format.ts).
 */
import { PreviewText } from '@formily/antd-v5';
import { connect, mapReadPretty } from '@formily/react';
import { DatePicker, type DatePickerProps } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { formatTime } from '../../shared/format';

interface Props {
  value?: string | null;
  onChange?: (value: string | null) => void;
}

function DateTimeText({ value }: Props) {
  return <PreviewText.Input value={value ? formatTime(value) : undefined} />;
}

function DateTimeInput({ value, onChange, ...rest }: Props & Omit<DatePickerProps, 'value' | 'onChange' | 'onOk'>) {
  return (
    <DatePicker
      showTime
      format="YYYY-MM-DD HH:mm:ss"
      {...rest}
      value={value ? dayjs(value) : null}
      onChange={(d: Dayjs | null) => onChange?.(d ? d.toISOString() : null)}
    />
  );
}

export const DateTime = connect(DateTimeInput, mapReadPretty(DateTimeText));

export default DateTime;
