/**
 * Rules about a patient that the registration form and the server both apply, so the
 * form fills in what the server would and neither drifts from the other (pure, like
 * ./formats.ts): the age from a birth date and the pinyin of a Chinese name. The
 * pinyin dictionary is passed in: the server imports pinyin-pro, the browser loads it
 * only when a registration form needs it.
 */

/** Age units of schemas/codes/ageUnit.json. */
export const AGE_UNIT = { hour: 0, day: 1, week: 2, month: 3, year: 4 } as const;

/** The region's calendar: China Standard Time (UTC+8, no daylight saving). */
export const REGION_OFFSET_MS = 8 * 3600_000;

/**
 * Age on `at` of someone born on `birthDate` (YYYY-MM-DD), in the unit a radiologist
 * reads it: years from 2 years on, months under 2 years, days under a month, hours on
 * the first day (at least 1); weeks are never chosen. Undefined for a date that is not
 * one, lies after `at`, or is more than 365 years ago.
 */
export function ageFromBirthDate(birthDate: string, at: Date = new Date()): { age: number; ageUnit: number } | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(birthDate);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const day = new Date(Date.UTC(y, mo - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d) return undefined;
  // The birth day starts at midnight in the region.
  const born = day.getTime() - REGION_OFFSET_MS;
  const now = at.getTime();
  if (born > now) return undefined;
  const today = new Date(now + REGION_OFFSET_MS);
  const months = (today.getUTCFullYear() - y) * 12 + (today.getUTCMonth() + 1 - mo) - (today.getUTCDate() < d ? 1 : 0);
  if (months >= 24) {
    const years = Math.floor(months / 12);
    return years <= 365 ? { age: years, ageUnit: AGE_UNIT.year } : undefined;
  }
  if (months >= 1) return { age: months, ageUnit: AGE_UNIT.month };
  const hours = Math.floor((now - born) / 3600_000);
  if (hours >= 24) return { age: Math.floor(hours / 24), ageUnit: AGE_UNIT.day };
  return { age: Math.max(1, hours), ageUnit: AGE_UNIT.hour };
}

/** Any Chinese character. */
export const HAN = /[\u3400-\u9fff]/;

const COMPOUND_SURNAMES = ['欧阳', '司马', '诸葛', '上官', '东方', '皇甫', '令狐', '慕容', '尉迟', '长孙', '宇文', '司徒', '夏侯', '公孙', '端木', '轩辕', '南宫', '西门'];
const cap = (s: string) => (s ? s[0].toUpperCase() + s.slice(1) : s);

/** pinyin-pro's `pinyin` as far as it is used here. */
export type PinyinFn = (text: string, options: { toneType: 'none'; type: 'array'; surname: 'head'; v: true }) => string[];

/**
 * The name in DICOM Person Name form for the worklist and foreign systems:
 * "Family^Given" in pinyin with capitals, e.g. 张三丰 → "Zhang^Sanfeng",
 * 欧阳娜娜 → "Ouyang^Nana" (compound surnames kept whole, surname readings such as
 * 单 → Shan). A name without Chinese characters is returned as written.
 */
export function pinyinName(name: string, pinyin: PinyinFn): string {
  const trimmed = name.trim();
  if (!HAN.test(trimmed)) return trimmed;
  const familyLength = trimmed.length > 2 && COMPOUND_SURNAMES.some((s) => trimmed.startsWith(s)) ? 2 : 1;
  const syllables = pinyin(trimmed, { toneType: 'none', type: 'array', surname: 'head', v: true }).map((s) => s.replace(/\s+/g, ''));
  const family = cap(syllables.slice(0, familyLength).join(''));
  const given = cap(syllables.slice(familyLength).join(''));
  return (given ? `${family}^${given}` : family).slice(0, 64);
}
