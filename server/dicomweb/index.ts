/**
 * DICOMweb (PS3.18) under /dicom-web: QIDO-RS search, WADO-RS retrieve (instances,
 * metadata, frames, rendered, thumbnails) and STOW-RS store, for the platform's viewer
 * and uploader and for standard DICOMweb clients. Registered by server/app.ts with the
 * prefix; its routes are outside /api (no X-App-Id, as DICOMweb clients send none),
 * so this plugin authorizes them itself, with the same sessions and permission keys:
 * a token in X-Auth-Token or `Authorization: Bearer`, and every route's
 * config.permission. Data scope is applied by each query (./resources.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors';
import { hasPermission } from '../identity/access';
import { resolveSession } from '../identity/sessions';
import { sendError } from '../lib/http';
import { tokenOf, type RouteAccess } from '../lib/http';
import { registerQido } from './qido';
import { registerStow } from './stow';
import { registerWado } from './wado';

export { PREFIX as DICOMWEB_PREFIX } from './resources';

export default async function dicomweb(fastify: FastifyInstance) {
  fastify.addHook('onRoute', (route) => {
    const access = (route.config ?? {}) as RouteAccess;
    // Nothing here is public: a route without its permission is a mistake caught at start-up.
    if (!access.permission) throw new Error(`${route.method} ${route.url}: DICOMweb routes declare config.permission`);
  });

  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const access = request.routeOptions.config as RouteAccess;
    if (!access.permission) return sendError(request, reply, new AppError('UAA102')); // the not-found handler's request
    const token = tokenOf(request);
    const ctx = token ? await resolveSession(fastify.db, fastify.config.identity, token) : null;
    if (!ctx) return sendError(request, reply, new AppError('UAA005'));
    // Known before it is judged, so that a refusal is recorded with who was refused (plugins/audit.ts);
    // a refused request ends here and never reaches a handler.
    request.auth = ctx;
    if (ctx.status !== 1) return sendError(request, reply, new AppError('UAA003'));
    if (ctx.passwordExpired) return sendError(request, reply, new AppError('UAA012'));
    if (ctx.hospitalId === null) return sendError(request, reply, new AppError('UAA103'));
    if (![access.permission].flat().some((key) => hasPermission(ctx.permissions, key))) return sendError(request, reply, new AppError('UAA103'));
  });

  // An unknown path here is a 404 for a signed-in caller (401 without a token), never the UI's
  // page: the UI's wildcard route would otherwise take /dicom-web/anything (plugins/ui.ts).
  fastify.setNotFoundHandler((request, reply) => sendError(request, reply, new AppError('UAA102')));
  fastify.all('/*', { config: { permission: 'image:view', audit: 'none' }, schema: { hide: true } }, async () => {
    throw new AppError('UAA102');
  });
  fastify.all('/', { config: { permission: 'image:view', audit: 'none' }, schema: { hide: true } }, async () => {
    throw new AppError('UAA102');
  });

  registerQido(fastify);
  registerWado(fastify);
  registerStow(fastify);
}
