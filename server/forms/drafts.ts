/**
 * Drafts of wizard forms (views with form.steps): the values typed so far and the
 * step reached, one per user and form, so a wizard left half-way opens where it was
 * left, on any device and any instance. A draft is the user's own: nobody else reads
 * it. Reads and writes form_draft only.
 */
import type { Queryable } from '../db';

export interface FormDraft {
  step: number;
  data: Record<string, unknown>;
  updatedAt: string;
}

export async function loadDraft(q: Queryable, userId: number, form: string): Promise<FormDraft | null> {
  const { rows } = await q.query<{ step: number; data: Record<string, unknown>; updated_at: Date }>(
    'SELECT step, data, updated_at FROM form_draft WHERE user_id = $1 AND form = $2',
    [userId, form],
  );
  return rows[0] ? { step: rows[0].step, data: rows[0].data, updatedAt: rows[0].updated_at.toISOString() } : null;
}

export async function saveDraft(q: Queryable, userId: number, form: string, step: number, data: Record<string, unknown>): Promise<FormDraft> {
  const { rows } = await q.query<{ updated_at: Date }>(
    `INSERT INTO form_draft (user_id, form, step, data) VALUES ($1, $2, $3, $4::jsonb)
     ON CONFLICT (user_id, form) DO UPDATE SET step = EXCLUDED.step, data = EXCLUDED.data, updated_at = now()
     RETURNING updated_at`,
    [userId, form, step, JSON.stringify(data)],
  );
  return { step, data, updatedAt: rows[0].updated_at.toISOString() };
}

export async function dropDraft(q: Queryable, userId: number, form: string): Promise<void> {
  await q.query('DELETE FROM form_draft WHERE user_id = $1 AND form = $2', [userId, form]);
}
