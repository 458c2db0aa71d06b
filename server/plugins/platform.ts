/**
 * Cross-cutting request handling for every route: request ids, the request's
 * language, the X-App-Id gate on /api, the one error handler and the not-found reply.
 * Registered first (external layer); touches no domain data.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { entityModel } from '../../src/shared/schema/model';
import { entityNames } from '../../src/shared/schema/schemas';
import { RESOURCE_REGISTRY as resourceRegistry } from '../../config/declared';
import app from '../../config/app.json';
import { databaseFailure } from '../lib/dbErrors';
import { AppError } from '../lib/errors';
import { sendError, t, validationFailure } from '../lib/http';
import { requestLanguage } from '../lib/language';

declare module 'fastify' {
  interface FastifyRequest {
    lang: string;
  }
}

// Handlers import these from ../lib/http.ts; re-exported for the routes that import them from here.
export { sendError, t, validationFailure };

/**
 * Paths under /api that answer without the X-App-Id header (probes, API docs, and the
 * video room's WebSocket, which a browser cannot give a header: it names its app in its
 * first message, checked there, server/video/hub.ts).
 */
const OPEN_API_PATHS = [/^\/api\/health$/, /^\/api\/docs(\/|$)/, /^\/api\/consult\/v1\/video\/socket$/];

async function platform(fastify: FastifyInstance, opts: { appIds: string[] }) {
  const appIds = new Set(opts.appIds);

  // The language is worked out only when a text is needed (errors, SMS), not on every request.
  const langCache = new WeakMap<FastifyRequest, string>();
  fastify.decorateRequest('lang', {
    getter(this: FastifyRequest) {
      let lang = langCache.get(this);
      if (!lang) {
        lang = requestLanguage(this.headers.cookie, this.headers['accept-language'], app.languageCookie);
        langCache.set(this, lang);
      }
      return lang;
    },
  });
  // Callback style: this hook runs on every request, and an async one costs a promise each.
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    const url = request.url;
    if (url.startsWith('/api/') && !OPEN_API_PATHS.some((re) => re.test(url.split('?')[0]))) {
      const id = request.headers['x-app-id'];
      if (typeof id !== 'string' || !appIds.has(id)) {
        sendError(request, reply, new AppError('UAA008'));
        return;
      }
    }
    done();
  });

  fastify.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) return sendError(request, reply, withDetail(request, error));
    if (error.validation) return sendError(request, reply, withDetail(request, validationFailure(error)));
    // A value the schema let through but the database refuses: the caller's fault, whichever route ran it.
    const refused = databaseFailure(error);
    if (refused) return sendError(request, reply, withDetail(request, refused));
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendError(request, reply, new AppError('UAA413'));
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      // Malformed JSON, wrong content type and similar client faults from Fastify itself.
      const code = error.statusCode === 429 ? 'UAA009' : 'UAA421';
      return sendError(request, reply, new AppError(code, { detail: error.message }));
    }
    // Everything else is ours: log it whole, answer without internals.
    request.log.error({ err: error, reqId: request.id }, 'unhandled error');
    return sendError(request, reply, new AppError('UAA511', { requestId: request.id }));
  });

  fastify.setNotFoundHandler(async (request, reply) => {
    if (request.url.startsWith('/api/') || request.url === '/api') {
      return sendError(request, reply, new AppError('UAA102'));
    }
    return fastify.spaFallback(request, reply);
  });
}

/**
 * Resolves a validation failure's field message into the UAA421 `detail` parameter,
 * and also sends it alone as `detail`: the form puts exactly that text on the field.
 * The field is called by its label when the body is an entity (entity.<entity>.field.*),
 * the same words the generated form uses, so a payload refused by both reads the same.
 */
function withDetail(request: FastifyRequest, err: AppError): AppError {
  const p = err.params as { detailKey?: string; field?: string; limit?: unknown } | undefined;
  if (!p?.detailKey) return err;
  const detail = t(request, fieldKey(request, p.detailKey, p.field), { field: fieldLabel(request, p.field), limit: p.limit });
  return new AppError(err.code, { detail }, { ...err.extra, detail });
}

/**
 * The entity a route's body is, and a failing field's name in it (array positions dropped: memberships.0.roleId is memberships.roleId).
 * A workflow action's body carries its form (`form`, an entity's fields: the edit of a revoked consultation): its fields are that entity's.
 */
function bodyField(request: FastifyRequest, field: string | undefined): { entity: string; name: string } | undefined {
  const body = request.routeOptions?.schema?.body as { $ref?: string; properties?: { form?: { $ref?: string } } } | undefined;
  const ref = body?.$ref ?? body?.properties?.form?.$ref;
  const entity = /^entities\/([A-Za-z0-9]+)\.json/.exec(ref ?? '')?.[1];
  if (!entity || !field || !entityNames.includes(entity)) return undefined;
  const path = body?.$ref ? field : field.replace(/^form\./, '');
  return { entity, name: path.split('.').filter((part) => !/^\d+$/.test(part)).join('.') };
}

function fieldLabel(request: FastifyRequest, field: string | undefined): string | undefined {
  const at = bodyField(request, field);
  if (!at) return field;
  const key = `entity.${at.entity}.field.${at.name}`;
  const label = t(request, key);
  return label === key ? field : label;
}

/** Fields filled from a data dictionary, by entity (config/resources.json `dictionaries`). */
const DICTIONARY_FIELDS = new Map(
  Object.entries(resourceRegistry)
    .filter(([k]) => !k.startsWith('$'))
    .map(([name, e]) => {
      const entry = e as { entity?: string; table?: { dictionaries?: Record<string, string> } };
      return [entry.entity ?? name, new Set(Object.keys(entry.table?.dictionaries ?? {}))] as const;
    }),
);

/** A missing choice (code table, boolean, dictionary) is "please select", as the form says it. */
function fieldKey(request: FastifyRequest, key: string, field: string | undefined): string {
  const at = bodyField(request, field);
  if (key !== 'validation.required' || !at) return key;
  const f = entityModel(at.entity).byName.get(at.name);
  const choice = f && (f.code || f.enum || f.type === 'boolean' || DICTIONARY_FIELDS.get(at.entity)?.has(at.name));
  return choice ? 'validation.select' : key;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Answers an unknown non-API path: the SPA's index.html when the UI is built, else 404. */
    spaFallback(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> | FastifyReply;
  }
}

export default fp(platform, { name: 'platform' });
