/**
 * Wizard drafts of the caller (../forms/drafts.ts), mounted under /api/ucenter/v1 by
 * ./ucenter.ts beside the other personal settings:
 *   GET  /draft/:form          the draft, or null
 *   POST /draft/:form          {step, data}: replaces it
 *   POST /draft/:form/delete   drops it (the wizard was submitted or abandoned)
 * `form` is a view's name (schemas/views/<form>.json); the data is whatever the form
 * held, checked by the form's own schema only when it is submitted.
 */
import type { FastifyInstance } from 'fastify';
import { dropDraft, loadDraft, saveDraft } from '../forms/drafts';
import { ok, replies } from '../lib/reply';
import { caller } from '../plugins/auth';

const formParams = { type: 'object', required: ['form'], properties: { form: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9]{0,63}$' } } } as const;
// `data` stays open: a wizard's values as its view had them when saved, whatever that view declared then.
const draftSchema = {
  type: 'object',
  required: ['step', 'data', 'updatedAt'],
  properties: { step: { type: 'integer' }, data: { type: 'object', additionalProperties: true }, updatedAt: { type: 'string', format: 'date-time' } },
} as const;

export default async function draftRoutes(fastify: FastifyInstance) {
  fastify.get<{ Params: { form: string } }>(
    '/draft/:form',
    {
      config: { session: true, audit: 'none' },
      schema: { tags: ['ucenter'], summary: 'The caller’s draft of a wizard form, or null', params: formParams, response: replies({ anyOf: [draftSchema, { type: 'null' }] }) },
    },
    async (request) => ok(await loadDraft(fastify.db, caller(request).userId, request.params.form)),
  );

  fastify.post<{ Params: { form: string }; Body: { step: number; data: Record<string, unknown> } }>(
    '/draft/:form',
    {
      config: { session: true, audit: { action: 'save', object: 'formDraft', id: 'params.form' } },
      bodyLimit: 256 * 1024,
      schema: {
        tags: ['ucenter'],
        summary: 'Keep the caller’s draft of a wizard form: the step reached and the values so far',
        params: formParams,
        body: { type: 'object', required: ['step', 'data'], additionalProperties: false, properties: { step: { type: 'integer', minimum: 0, maximum: 50 }, data: { type: 'object', additionalProperties: true } } },
        response: replies(draftSchema),
      },
    },
    async (request) => ok(await saveDraft(fastify.db, caller(request).userId, request.params.form, request.body.step, request.body.data)),
  );

  fastify.post<{ Params: { form: string } }>(
    '/draft/:form/delete',
    {
      config: { session: true, audit: { action: 'delete', object: 'formDraft', id: 'params.form' } },
      schema: { tags: ['ucenter'], summary: 'Drop the caller’s draft of a wizard form', params: formParams, response: replies({ type: 'null' }) },
    },
    async (request) => {
      await dropDraft(fastify.db, caller(request).userId, request.params.form);
      return ok(null);
    },
  );
}
