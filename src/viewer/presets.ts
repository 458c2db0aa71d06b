/**
 * Window presets of the viewer (issue #7): the CT ones radiologists reach for, and the
 * study's own DICOM window as "default". Window width and level (centre) in HU, as the
 * overlay shows them; a VOI range is what Cornerstone takes. Pure.
 */

export interface WindowLevel {
  width: number;
  center: number;
}

export interface VoiRange {
  lower: number;
  upper: number;
}

/** Keys are locale suffixes: viewer.preset.<key>. */
export const CT_PRESETS: Readonly<Record<string, WindowLevel>> = Object.freeze({
  lung: { width: 1500, center: -600 },
  mediastinum: { width: 350, center: 50 },
  bone: { width: 2000, center: 500 },
  brain: { width: 80, center: 40 },
  abdomen: { width: 400, center: 50 },
});

export type PresetKey = keyof typeof CT_PRESETS | 'default';

export const PRESET_KEYS: readonly PresetKey[] = ['default', ...(Object.keys(CT_PRESETS) as PresetKey[])];

/** DICOM's LINEAR window (PS3.3 C.11.2.1.2), as Cornerstone applies it: width W spans W - 1 values. */
export function toVoiRange({ width, center }: WindowLevel): VoiRange {
  return { lower: center - 0.5 - (width - 1) / 2, upper: center - 0.5 + (width - 1) / 2 };
}

export function toWindowLevel({ lower, upper }: VoiRange): WindowLevel {
  return { width: Math.abs(upper - lower) + 1, center: (lower + upper + 1) / 2 };
}

/** The window as the overlay writes it: whole numbers, "W 400 L 50". */
export function windowText(range: VoiRange | undefined): { width: string; center: string } | undefined {
  if (!range || !Number.isFinite(range.lower) || !Number.isFinite(range.upper)) return undefined;
  const { width, center } = toWindowLevel(range);
  return { width: String(Math.round(width)), center: String(Math.round(center)) };
}
