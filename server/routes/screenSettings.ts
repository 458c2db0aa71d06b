/**
 * Screen settings without code, mounted under /api/ucenter/v1 by ./ucenter.ts:
 * - per user (spec section 7, "save and get user config (list columns)", "generic
 *   get-columns and set-columns by module"): a list's columns and query-bar fields,
 *   kept in user_setting;
 * - per hospital (section 2's page-configuration dialog, section 7's "report page
 *   config get and save"): a form's groups and field order, kept in org_setting,
 *   changed only with reportPage:edit and read by everyone of the hospital.
 * - per user, the common settings of user info (spec section 3: examNotice, viewConfig,
 *   refresh, autoExamRemind): one call per module of entities/commonSetting.json,
 *   saving that module whole; user info merges it over config/defaults.json.
 * Payloads are checked by schema only: views are client files, and the client merges
 * a stored value with its view (src/schema/layout.ts), so a stale key is harmless.
 */
import type { FastifyInstance } from 'fastify';
import type { FormLayout } from '../../src/shared/generated/entities/formLayout';
import type { ScreenSetting } from '../../src/shared/generated/entities/screenSetting';
import commonSetting from '../../schemas/entities/commonSetting.json';
import { AppError } from '../lib/errors';
import { ok, replies } from '../lib/reply';
import { caller } from '../plugins/auth';
import { saveUserSetting } from '../identity/userSettings';

/**
 * user_setting also holds the common settings of user info (examNotice, viewConfig, …
 * keyed by their bare name, see ./uaa.ts); screen settings live under this prefix so a
 * view called like a common setting can never overwrite it.
 */
export const USER_SCREEN_PREFIX = 'screen:';
/** org_setting keys of form layouts, leaving room for other per-hospital settings. */
export const ORG_FORM_PREFIX = 'form:';

const moduleRef = { $ref: 'entities/screenSetting.json#/definitions/module' };
const moduleParams = { type: 'object', required: ['module'], properties: { module: moduleRef } };
const orNull = (ref: string) => ({ anyOf: [{ $ref: ref }, { type: 'null' }] });

/** A field in two groups, or a group twice, would make the merge guess: refuse it. */
function assertDistinct(layout: FormLayout) {
  const groups = new Set<string>();
  const fields = new Set<string>();
  for (const g of layout.groups) {
    if (groups.has(g.key))
      throw new AppError('UAA421', { detailKey: 'validation.uniqueItems', field: 'value.groups' }, { field: 'value.groups' });
    groups.add(g.key);
    for (const f of g.fields) {
      if (fields.has(f))
        throw new AppError('UAA421', { detailKey: 'validation.uniqueItems', field: 'value.groups' }, { field: 'value.groups' });
      fields.add(f);
    }
  }
}

export default async function screenSettingRoutes(fastify: FastifyInstance) {
  // Personal settings do not depend on the hospital: readable before one is chosen.
  fastify.get<{ Params: { module: string } }>(
    '/user/config/:module',
    {
      config: { session: true, allowWithoutHospital: true, audit: 'none' },
      schema: {
        tags: ['ucenter'],
        summary: 'The caller’s settings of one list screen (columns, query fields), or null',
        params: moduleParams,
        response: replies(orNull('entities/screenSetting.json#')),
      },
    },
    async (request) => {
      const me = caller(request);
      const { rows } = await fastify.db.query<{ value: ScreenSetting }>(
        'SELECT value FROM user_setting WHERE user_id = $1 AND module = $2',
        [me.userId, USER_SCREEN_PREFIX + request.params.module],
      );
      return ok(rows[0]?.value ?? null);
    },
  );

  fastify.post<{ Body: { module: string; value: ScreenSetting } }>(
    '/user/config',
    {
      config: { session: true, allowWithoutHospital: true, audit: 'none' },
      schema: {
        tags: ['ucenter'],
        summary: 'Save the caller’s settings of one list screen (replaces what was stored)',
        body: {
          type: 'object',
          required: ['module', 'value'],
          properties: { module: moduleRef, value: { $ref: 'entities/screenSetting.json#' } },
          additionalProperties: false,
        },
        response: replies({ $ref: 'entities/screenSetting.json#' }),
      },
    },
    async (request) => {
      const me = caller(request);
      const { module, value } = request.body;
      await saveUserSetting(fastify.db, me.userId, USER_SCREEN_PREFIX + module, value);
      return ok(value);
    },
  );

  // One route per module: the server's validator fills every module's defaults into the
  // body, so a call naming several could not tell the ones the user sent from the rest.
  for (const module of Object.keys(commonSetting.properties)) {
    fastify.post<{ Body: Record<string, unknown> }>(
      `/user/commonSetting/${module}`,
      {
        config: { session: true, allowWithoutHospital: true, audit: 'none' },
        schema: {
          tags: ['ucenter'],
          summary: `Save the caller’s common setting ${module} (body {${module}}); user info returns it merged over the defaults`,
          // The whole entity (a module's part alone cannot be a schema root: its `default`); only `module` is saved.
          body: { type: 'object', required: [module], allOf: [{ $ref: 'entities/commonSetting.json#' }] },
          // The module's value as saved.
          response: replies({ $ref: `entities/commonSetting.json#/properties/${module}` }),
        },
      },
      async (request) => {
        const me = caller(request);
        const value = request.body[module];
        // Bare module name: the common settings' keys in user_setting (./uaa.ts reads them).
        await saveUserSetting(fastify.db, me.userId, module, value);
        return ok(value);
      },
    );
  }

  // Null without a chosen hospital: the form then shows its view's own layout.
  fastify.get<{ Params: { module: string } }>(
    '/org/config/:module',
    {
      config: { session: true, allowWithoutHospital: true, audit: 'none' },
      schema: {
        tags: ['ucenter'],
        summary: 'The page configuration of one form for the caller’s current hospital, or null',
        params: moduleParams,
        response: replies(orNull('entities/formLayout.json#')),
      },
    },
    async (request) => {
      const me = caller(request);
      if (me.hospitalId === null) return ok(null);
      const { rows } = await fastify.db.query<{ value: FormLayout }>('SELECT value FROM org_setting WHERE org_id = $1 AND module = $2', [
        me.hospitalId,
        ORG_FORM_PREFIX + request.params.module,
      ]);
      return ok(rows[0]?.value ?? null);
    },
  );

  fastify.post<{ Body: { module: string; value: FormLayout } }>(
    '/org/config',
    {
      config: { permission: 'reportPage:edit', audit: { action: 'configure', object: 'orgConfig', id: 'body.module' } },
      schema: {
        tags: ['ucenter'],
        summary: 'Save the page configuration of one form for the caller’s current hospital',
        body: {
          type: 'object',
          required: ['module', 'value'],
          properties: { module: moduleRef, value: { $ref: 'entities/formLayout.json#' } },
          additionalProperties: false,
        },
        response: replies({ $ref: 'entities/formLayout.json#' }),
      },
    },
    async (request) => {
      const me = caller(request);
      const { module, value } = request.body;
      assertDistinct(value);
      // The gate refuses a permission route without a hospital, so hospitalId is set here.
      await fastify.db.query(
        `INSERT INTO org_setting (org_id, module, value) VALUES ($1, $2, $3::jsonb)
         ON CONFLICT (org_id, module) DO UPDATE SET value = excluded.value, updated_at = now()`,
        [me.hospitalId, ORG_FORM_PREFIX + module, JSON.stringify(value)],
      );
      return ok(value);
    },
  );
}
