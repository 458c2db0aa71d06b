/**
 * What an image upload checks before sending (components/ImageUpload): type, file size
 * and exact pixel size, in the server's order, so the user hears what the server would
 * say without the round trip. The server checks again and stays the authority. Pure.
 */

export interface ImageLimits {
  /** MIME types accepted ("image/jpeg", "image/png"). */
  types: string[];
  maxBytes: number;
  /** Exact pixel size (a signature); absent: any size (an avatar). */
  width?: number;
  height?: number;
}

/** What is known of a chosen file: type and size at once, pixels once it is decoded. */
export interface ImageFacts {
  type: string;
  bytes: number;
  width?: number;
  height?: number;
}

export type ImageProblem =
  | { key: 'badType' }
  | { key: 'tooLarge' }
  | { key: 'badSize'; actualWidth: number; actualHeight: number };

/** The first rule the file breaks, or undefined; pixels are judged only when known. */
export function imageProblem(facts: ImageFacts, limits: ImageLimits): ImageProblem | undefined {
  if (!limits.types.includes(facts.type)) return { key: 'badType' };
  if (facts.bytes > limits.maxBytes) return { key: 'tooLarge' };
  if (limits.width === undefined || limits.height === undefined) return undefined;
  if (facts.width !== undefined && facts.height !== undefined && (facts.width !== limits.width || facts.height !== limits.height)) {
    return { key: 'badSize', actualWidth: facts.width, actualHeight: facts.height };
  }
  return undefined;
}

const TYPE_NAMES: Record<string, string> = { 'image/jpeg': 'JPG', 'image/png': 'PNG', 'image/gif': 'GIF', 'image/webp': 'WEBP', 'application/pdf': 'PDF', 'application/dicom': 'DICOM' };

/** "JPG / PNG" ("JPG / PNG / PDF / DICOM" for attachments) for the hints and the messages. */
export function typeNames(types: string[]): string {
  return types.map((t) => TYPE_NAMES[t] ?? t.replace(/^image\//, '').toUpperCase()).join(' / ');
}

/** 1048576 → "1 MB", 204800 → "200 KB". */
export function sizeText(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  if (mb >= 1) return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
  return `${Math.round(bytes / 1024)} KB`;
}

/** Is `value` a usable set of limits (a view's props are JSON nobody type-checked)? */
export function isImageLimits<T extends Partial<ImageLimits>>(value: T): value is T & ImageLimits {
  const positive = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n > 0;
  // Pixels: both exact, or neither (any size).
  const pixels = value.width === undefined && value.height === undefined ? true : positive(value.width) && positive(value.height);
  return Array.isArray(value.types) && value.types.length > 0 && positive(value.maxBytes) && pixels;
}

/** Whether the limits ask for an exact pixel size. */
export const exactPixels = (limits: ImageLimits): limits is ImageLimits & { width: number; height: number } => limits.width !== undefined && limits.height !== undefined;
