/**
 * The grade-safety setting (等保, spec section 5 "Data masking"): when on, patient
 * identifiers are masked by the server for every caller without privacy:phoneVisible.
 * Stored region-wide in app_meta under key `grade_safety` as a JSON boolean (absent = off).
 *   GET  /api/ucenter/v1/config/gradeSafety   system.generalConfig:view → {enabled}
 *   POST /api/ucenter/v1/config/gradeSafety   system.generalConfig:edit  {enabled} → {enabled}
 */
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db';
import type { AuthContext } from '../identity/sessions';
import { hasPermission } from '../identity/access';
import { maskRow } from '../lib/masking';
import { ok, replies } from '../lib/reply';

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

const setting = { type: 'object', required: ['enabled'], properties: { enabled: { type: 'boolean' } }, additionalProperties: false };

export default async function gradeSafetyRoutes(fastify: FastifyInstance) {
  fastify.get(
    '/config/gradeSafety',
    {
      config: { permission: 'system.generalConfig:view', audit: 'none' },
      schema: { tags: ['ucenter'], summary: 'Whether patient identifiers are masked (grade safety)', response: replies(setting) },
    },
    async () => ok({ enabled: await gradeSafetyOn(fastify.db) }),
  );

  fastify.post<{ Body: { enabled: boolean } }>(
    '/config/gradeSafety',
    {
      // Masking applies to every hospital: a region-wide setting.
      config: { permission: 'system.generalConfig:edit', regionScope: true, audit: { action: 'configure', object: 'gradeSafety' } },
      schema: { tags: ['ucenter'], summary: 'Turn masking of patient identifiers on or off', body: setting, response: replies(setting) },
    },
    async (request) => {
      await fastify.db.query(
        `INSERT INTO app_meta (key, value) VALUES ($1, to_jsonb($2::boolean))
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now()`,
        [GRADE_SAFETY_KEY, request.body.enabled],
      );
      return ok({ enabled: request.body.enabled });
    },
  );
}
