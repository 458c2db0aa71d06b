/**
 * exceljs, loaded on first use: it costs about half a second to load, which every
 * start would pay although only imports and exports need it.
 */
import type ExcelJS from 'exceljs';

let loaded: Promise<typeof ExcelJS> | undefined;

export function excel(): Promise<typeof ExcelJS> {
  loaded ??= import('exceljs').then((m) => (m as unknown as { default?: typeof ExcelJS }).default ?? (m as unknown as typeof ExcelJS));
  return loaded;
}
