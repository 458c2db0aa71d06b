/**
 * The grade-safety setting (等保, spec section 5 "Data masking"): when on, patient
 * identifiers are masked by the server for every caller without privacy:phoneVisible.
 * Stored region-wide in app_meta under key `grade_safety` as a JSON boolean (absent =
 * off). Its HTTP face is ../routes/gradeSafety.ts; the exam, report, viewer, DICOMweb
 * and export code mask through the functions here.
 */
import type { Queryable } from '../db';
import type { AuthContext } from './sessions';
import { hasPermission } from './access';
import { maskRow } from '../lib/masking';

export const GRADE_SAFETY_KEY = 'grade_safety';

/** SQL: whether the setting is on, for a query that reads it along with its rows (one round trip less). */
export const GRADE_SAFETY_ON_SQL = `coalesce((SELECT value = 'true'::jsonb FROM app_meta WHERE key = '${GRADE_SAFETY_KEY}'), false)`;

export async function gradeSafetyOn(q: Queryable): Promise<boolean> {
  const { rows } = await q.query<{ on: boolean }>(`SELECT ${GRADE_SAFETY_ON_SQL} AS on`);
  return rows[0]?.on === true;
}

type Masker = <T extends Record<string, unknown>>(row: T) => T;

/** What the caller gets to see of a patient row: masked unless the setting is off or the caller may see it. */
export function masker(me: AuthContext, settingOn: boolean): Masker {
  if (!settingOn || hasPermission(me.permissions, 'privacy:phoneVisible')) return (row) => row;
  return (row) => maskRow(row);
}

/** Whether this caller gets patient identifiers masked now (the setting is read only for a caller it could apply to). */
export async function masksFor(q: Queryable, me: AuthContext): Promise<boolean> {
  return !hasPermission(me.permissions, 'privacy:phoneVisible') && (await gradeSafetyOn(q));
}

/** masker() with the setting read now. */
export async function rowMasker(q: Queryable, me: AuthContext): Promise<Masker> {
  return masker(me, await masksFor(q, me));
}

/** Turns masking on or off for the whole region. */
export async function setGradeSafety(q: Queryable, enabled: boolean): Promise<void> {
  await q.query(
    `INSERT INTO app_meta (key, value) VALUES ($1, to_jsonb($2::boolean))
     ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now()`,
    [GRADE_SAFETY_KEY, enabled],
  );
}
