/**
 * A user's stored settings (user_setting): a screen's setting or a common setting per
 * module, written by the settings routes and by the demo seed.
 */
import type { Queryable } from '../db';

/** Stores one user_setting row (a screen's setting or a common setting), replacing what was there. */
export async function saveUserSetting(q: Queryable, userId: number, module: string, value: unknown): Promise<void> {
  await q.query(
    `INSERT INTO user_setting (user_id, module, value) VALUES ($1, $2, $3::jsonb)
     ON CONFLICT (user_id, module) DO UPDATE SET value = excluded.value, updated_at = now()`,
    [userId, module, JSON.stringify(value)],
  );
}
