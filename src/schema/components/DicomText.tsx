/**
 * A DICOM value in a form (view hint `dicom`): DA, TM and PN read-pretty as people read
 * them (../../utils/dicom); archive attributes are never edited, so the edit side is a
 * plain input of the value as stored.
 */
import { PreviewText } from '@formily/antd-v5';
import { connect, mapReadPretty } from '@formily/react';
import { Input, type InputProps } from 'antd';
import { dicomText, type DicomVr as Vr } from '../../utils/dicom';

function DicomInput({ vr: _vr, ...props }: InputProps & { vr?: Vr }) {
  return <Input {...props} />;
}

function DicomPretty({ value, vr = 'DA' }: { value?: string | null; vr?: Vr }) {
  // PreviewText shows its placeholder for no value.
  return <PreviewText.Input value={dicomText(vr, value) || undefined} />;
}

export const DicomText = connect(DicomInput, mapReadPretty(DicomPretty));

export default DicomText;
