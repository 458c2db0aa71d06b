/**
 * The form control of an attachment (common.json#/definitions/attachment: a file id of
 * the file service, format "file-id"; `attachments`: an array of them): FileUpload,
 * with the view hint's props (`purpose`, and `ownerField`, the form field holding the
 * owning record's id) and, for an array, the schema's item limit. Pure; used by
 * ./toFormily when it picks a field's control.
 */
import type { FieldInfo } from '../shared/schema/model';
import type { FieldHint } from '../shared/schema/types';

export const FILE_ID_FORMAT = 'file-id';

export function isAttachment(f: FieldInfo): boolean {
  return f.format === FILE_ID_FORMAT || (f.type === 'array' && f.items?.format === FILE_ID_FORMAT);
}

/** FileUpload for an attachment field (unless the view names another component), else undefined. */
export function uploadControl(f: FieldInfo, h: FieldHint): { component: string; props: Record<string, unknown> } | undefined {
  if (h.component || !isAttachment(f)) return undefined;
  const multiple = f.type === 'array';
  return { component: 'FileUpload', props: { multiple, ...(multiple && f.maxItems ? { maxCount: f.maxItems } : {}), ...h.props } };
}
