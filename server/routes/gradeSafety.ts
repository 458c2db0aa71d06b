/**
 * The grade-safety setting (等保, spec section 5 "Data masking"): when on, patient
 * identifiers are masked by the server for every caller without privacy:phoneVisible.
 * Stored region-wide in app_meta under key `grade_safety` as a JSON boolean (absent = off).
 *   GET  /api/ucenter/v1/config/gradeSafety   system.generalConfig:view → {enabled}
 *   POST /api/ucenter/v1/config/gradeSafety   system.generalConfig:edit  {enabled} → {enabled}
 * The setting and the maskers are ../identity/gradeSafety.ts.
 */
import type { FastifyInstance } from 'fastify';
import { gradeSafetyOn, setGradeSafety } from '../identity/gradeSafety';
import { ok, replies } from '../lib/reply';

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
      await setGradeSafety(fastify.db, request.body.enabled);
      return ok({ enabled: request.body.enabled });
    },
  );
}
