/**
 * A printed report as data, pure (no React, no requests): the shape GET
 * /api/report/v1/print/layout/:id answers (PrintSheet, schemas/printSheet.json), and
 * the A4 sheet worked out from it in the language's words: the heading, the header cells, the body paragraphs and the footer cells with the
 * doctors' signatures, in the layout's order, its hidden items left out. The
 * /qualityControl preview feeds it sample values (sampleSheet).
 */
import { valueWithUnit } from '../../locales';
import type { Translate } from './schema/types';
import type { PrintLayout } from './generated/entities/printLayout';
import type { PrintSheet, Signature } from './generated/printSheet';
import { formatTime } from './format';

export type PrintItem = PrintLayout['fields'][number];
export type PrintField = PrintItem['field'];
export type PrintGroup = PrintItem['group'];

/** The doctor items that may sign with a picture, with the layout flag that says so. */
export const SIGNED_ITEMS = { firstTrialDoctorName: 'firstTrialSignature', retrialDoctorName: 'retrialSignature' } as const;
export type SignedItem = keyof typeof SIGNED_ITEMS;

/** The sheet's data as its one schema declares it (schemas/printSheet.json); the server builds it and answers with it. */
export type { PrintSheet };
export type SheetSignature = Signature;

export interface SheetCell {
  field: PrintField;
  /** With the language's separator ("姓名：", "Name: "). */
  label: string;
  text: string;
  /** A signature picture printed instead of the text. */
  image?: string;
}

export interface SheetModel {
  hospitalName: string;
  title: string;
  headerText?: string;
  footerText?: string;
  columns: number;
  fontSize: number;
  header: SheetCell[];
  body: SheetCell[];
  footer: SheetCell[];
}

const TIMES = new Set<PrintField>(['examTime', 'firstTrialTime']);
const TIME_PATTERN = '{y}-{m}-{d} {h}:{i}';

/** An item's value as printed: code texts, the age with its unit, times to the minute; nothing for no value. */
export function itemText(field: PrintField, values: PrintSheet['values'], t: Translate): string {
  const v = values[field];
  if (v === undefined || v === null || v === '') return '';
  if (field === 'sex') return t(`code.sex.${String(v)}`);
  if (field === 'age' && values.ageUnit !== undefined && values.ageUnit !== null) {
    return valueWithUnit(t, 'ageUnit', values.ageUnit, v);
  }
  if (TIMES.has(field)) return formatTime(v as string, TIME_PATTERN);
  return String(v);
}

/** The sheet's blocks from a layout and a report's values. */
export function sheetModel(sheet: Pick<PrintSheet, 'layout' | 'values' | 'signatures'> & { hospitalName: string }, t: Translate): SheetModel {
  const { layout, values, signatures } = sheet;
  const blocks: Record<PrintGroup, SheetCell[]> = { header: [], body: [], footer: [] };
  for (const item of layout.fields) {
    if (item.show === false) continue;
    const signed = item.field in SIGNED_ITEMS ? signatures[item.field as SignedItem] : undefined;
    blocks[item.group].push({
      field: item.field,
      label: t('entity.printLayout.cellLabel', { label: item.label || t(`code.printField.${item.field}`) }),
      text: itemText(item.field, values, t),
      image: signed?.image,
    });
  }
  return {
    hospitalName: layout.hospitalName || sheet.hospitalName,
    title: layout.title,
    headerText: layout.headerText,
    footerText: layout.footerText,
    columns: layout.columns ?? 3,
    fontSize: layout.fontSize ?? 11,
    ...blocks,
  };
}

/** A signature stand-in for the preview: the name in a handwriting face, as a picture. */
function sampleSignature(name: string): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="130"><text x="100" y="80" font-size="40" text-anchor="middle" font-family="cursive" font-style="italic" fill="#1a3a8a">${name.replace(/[<&>"]/g, '')}</text></svg>`;
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

/**
 * The layout being edited with sample values (entity.printLayout.sample.*), for the
 * live preview: every item has a value, and a signing doctor a stand-in picture.
 */
export function sampleSheet(layout: PrintLayout, t: Translate, now = new Date()): Pick<PrintSheet, 'layout' | 'values' | 'signatures'> & { hospitalName: string } {
  const sample = (field: string) => t(`entity.printLayout.sample.${field}`);
  const writer = sample('firstTrialDoctorName');
  const reviewer = sample('retrialDoctorName');
  const text: PrintField[] = ['deviceName', 'modality', 'examCode', 'patientId', 'patientName', 'deptName', 'roomNo', 'inPatientNo', 'outPatientNo', 'organName', 'itemName', 'see', 'diagnosis'];
  const values: PrintSheet['values'] = Object.fromEntries(text.map((f) => [f, sample(f)]));
  Object.assign(values, { sex: 1, age: 45, ageUnit: 4, examTime: now.toISOString(), firstTrialTime: now.toISOString(), firstTrialDoctorName: writer, retrialDoctorName: reviewer, notes: layout.notes });
  const signatures: PrintSheet['signatures'] = {};
  for (const [item, flag] of Object.entries(SIGNED_ITEMS) as Array<[SignedItem, (typeof SIGNED_ITEMS)[SignedItem]]>) {
    const name = item === 'firstTrialDoctorName' ? writer : reviewer;
    signatures[item] = { name, active: true, image: layout[flag] ? sampleSignature(name) : undefined };
  }
  return { layout, values, signatures, hospitalName: sample('hospitalName') };
}
