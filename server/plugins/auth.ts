/**
 * Authorization for the whole /api: every route declares in its `config` either
 * `public: true`, `session: true` (any logged-in caller) or `permission:
 * "module:action"`; a route that declares none fails at start-up, so nothing is
 * opened by omission. One onRequest hook resolves the token (X-Auth-Token, or
 * `Authorization: Bearer` for DICOMweb clients) on each route that is not public, refuses what the session may not
 * do, and leaves `request.auth` (user, hospital, permissions, data scope) for handlers.
 */
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../lib/errors';
import { assertPermissionKey, hasPermission } from '../identity/access';
import { hasRegionScope } from '../identity/grants';
import { resolveSession, type AuthContext } from '../identity/sessions';
import { caller, sendError, tokenOf, type RouteAccess } from '../lib/http';

// Handlers import these from ../lib/http.ts; re-exported for the routes that import them from here.
export { caller, tokenOf, type RouteAccess };

/** The API documentation (plugins/docs.ts): Swagger UI's page and assets are public... */
export const DOCS_PREFIX = '/api/docs';
/** ...the document itself (JSON, YAML) is for system configuration administrators. */
export const DOCS_DOCUMENT = /^\/api\/docs\/(json|yaml)$/;
export const DOCS_PERMISSION = 'system.generalConfig:edit';

declare module 'fastify' {
  interface FastifyContextConfig extends RouteAccess {}
  interface FastifyRequest {
    auth?: AuthContext;
  }
  interface FastifyInstance {
    /** Every /api route with its access declaration (the authorization test walks it). */
    apiRoutes: Array<{ method: string; url: string; access: RouteAccess }>;
  }
}

async function auth(fastify: FastifyInstance) {
  const registry: FastifyInstance['apiRoutes'] = [];
  fastify.decorate('apiRoutes', registry);

  fastify.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api')) return;
    let config = (route.config ?? {}) as RouteAccess;
    if (route.url.startsWith(DOCS_PREFIX)) {
      // Swagger UI's page and assets are public; the API document needs its permission.
      if (!DOCS_DOCUMENT.test(route.url)) {
        route.config = { ...config, public: true } as typeof route.config;
        return;
      }
      config = { permission: DOCS_PERMISSION };
      route.config = { ...route.config, ...config } as typeof route.config;
    }
    const declared = [config.public, config.session, config.permission].filter(Boolean).length;
    if (declared !== 1) {
      throw new Error(`${route.method} ${route.url}: declare exactly one of config.public, config.session or config.permission`);
    }
    for (const key of [config.permission ?? []].flat()) assertPermissionKey(key);
    // Only routes that need a caller run the session lookup (public ones, like the health probe, skip it).
    if (!config.public) route.onRequest = [authenticate, ...[route.onRequest ?? []].flat()];
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') registry.push({ method, url: route.url, access: config });
    }
  });

  const authenticate: onRequestAsyncHookHandler = async function (request, reply) {
    const config = request.routeOptions.config as RouteAccess;
    const token = tokenOf(request);
    const ctx = token ? await resolveSession(fastify.db, fastify.config.identity, token) : null;
    if (!ctx) return sendError(request, reply, new AppError('UAA005'));
    // Known before it is judged, so that a refusal is recorded with who was refused (plugins/audit.ts);
    // a refused request ends here and never reaches a handler.
    request.auth = ctx;
    if (ctx.status !== 1) return sendError(request, reply, new AppError('UAA003'));
    if (ctx.passwordExpired && !config.allowWhenPasswordExpired) return sendError(request, reply, new AppError('UAA012'));
    if (ctx.hospitalId === null && !config.allowWithoutHospital) return sendError(request, reply, new AppError('UAA103'));
    if (config.permission && ![config.permission].flat().some((key) => hasPermission(ctx.permissions, key))) {
      return sendError(request, reply, new AppError('UAA103'));
    }
    if (config.regionScope && !hasRegionScope(ctx.scope)) return sendError(request, reply, new AppError('PACS006'));
  };
}

export default fp(auth, { name: 'auth', dependencies: ['platform'] });
