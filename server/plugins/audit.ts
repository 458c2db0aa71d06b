/**
 * The audit trail for every route of /api and /dicom-web: each route declares in its
 * config `audit: 'none'` or what it does to what (action, object type, where the
 * object's id is, whether that id names patient data); a route that declares nothing
 * stops the server from starting, like a missing access declaration does
 * (./auth.ts). One onResponse hook turns the declaration and the answer into an event
 * for the batched writer (../audit/trail.ts): who (the session's user and hospital, or
 * the mobile a login names), when, what, the outcome (success, or refused with the
 * catalogue code) and the client IP (X-Forwarded-For only with TRUST_PROXY).
 * A 401 or 403 is recorded on every route, declared `none` or not.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AuditTrail, type AuditOutcome } from '../audit/trail';
import { AUDIT_ACTIONS, AUDIT_OBJECTS, type AuditAction, type AuditDeclaration, type AuditSpec } from '../audit/declaration';

// Declared in ../audit/declaration.ts; re-exported for the routes that import them from here.
export { AUDIT_ACTIONS, AUDIT_OBJECTS, type AuditAction, type AuditDeclaration, type AuditSpec };

declare module 'fastify' {
  interface FastifyContextConfig {
    audit?: AuditDeclaration;
  }
  interface FastifyRequest {
    /** The catalogue code of a failure answer (set by sendError), recorded as the outcome's code. */
    errorCode?: string;
    /** The object id a create answered with (routes declaring `id: 'reply'`). */
    auditReplyId?: string;
  }
  interface FastifyInstance {
    auditTrail: AuditTrail;
    /** Every audited route with its declaration (the audit test walks it). */
    auditRoutes: Array<{ method: string; url: string; audit: AuditDeclaration }>;
  }
}

/** The paths whose routes must declare their audit. */
const AUDITED_PREFIXES = ['/api/', '/dicom-web/'];
const OPEN_PATHS = [/^\/api\/docs(\/|$)/];

function pick(request: FastifyRequest, where: string | undefined): string | null {
  if (!where) return null;
  if (where === 'reply') return request.auditReplyId ?? null;
  const [from, name] = where.split('.', 2);
  const source = (from === 'params' ? request.params : from === 'query' ? request.query : from === 'body' ? request.body : undefined) as
    | Record<string, unknown>
    | undefined;
  const value = source && typeof source === 'object' ? source[name] : undefined;
  if (value === undefined || value === null || value === '') return null;
  return Array.isArray(value) ? value.map(String).join(',').slice(0, 500) : String(value).slice(0, 200);
}

function outcomeOf(status: number): AuditOutcome {
  return status < 400 ? 'success' : status >= 500 ? 'error' : 'refused';
}

function validateSpec(spec: AuditSpec, where: string): void {
  if (!AUDIT_ACTIONS.includes(spec.action)) throw new Error(`${where}: unknown audit action ${spec.action} (schemas/codes/auditAction.json)`);
  if (!AUDIT_OBJECTS.includes(spec.object)) throw new Error(`${where}: unknown audit object ${spec.object} (schemas/codes/auditObject.json)`);
  for (const path of [spec.id, spec.subject]) {
    if (path !== undefined && path !== 'reply' && !/^(params|body|query)\.[A-Za-z0-9]+$/.test(path)) {
      throw new Error(`${where}: audit ids are params.<name>, body.<name>, query.<name> or reply, not ${path}`);
    }
  }
  if (spec.patient && !spec.id) throw new Error(`${where}: an audit naming a patient needs the object's id`);
}

async function audit(fastify: FastifyInstance) {
  const trail = new AuditTrail(() => fastify.db, { retentionMonths: fastify.config.audit.retentionMonths, flushMs: fastify.config.audit.flushMs, log: fastify.log });
  fastify.decorate('auditTrail', trail);
  const registry: FastifyInstance['auditRoutes'] = [];
  fastify.decorate('auditRoutes', registry);
  fastify.background.add('audit flush', () => trail.start());
  fastify.addHook('onClose', async () => trail.close());

  fastify.addHook('onRoute', (route) => {
    if (!AUDITED_PREFIXES.some((p) => route.url.startsWith(p)) || OPEN_PATHS.some((re) => re.test(route.url))) return;
    const declared = (route.config as { audit?: AuditDeclaration } | undefined)?.audit;
    if (declared === undefined) throw new Error(`${route.method} ${route.url}: declare config.audit ('none' or what the call does to what)`);
    if (declared !== 'none') {
      validateSpec(declared, `${route.method} ${route.url}`);
      // A create's id is in its answer: read it there, on this route only.
      if (declared.id === 'reply') route.onSend = [captureReplyId, ...[route.onSend ?? []].flat()];
    }
    for (const method of [route.method].flat()) if (method !== 'HEAD') registry.push({ method, url: route.url, audit: declared });
  });

  // Callback style: it runs on every request, and an async hook costs a promise each.
  fastify.addHook('onResponse', (request, reply, done) => {
    const declared = (request.routeOptions.config as { audit?: AuditDeclaration } | undefined)?.audit;
    const status = reply.statusCode;
    if (declared === undefined || (declared === 'none' && status !== 401 && status !== 403)) return done();
    const spec: AuditSpec = declared === 'none' ? { action: 'access', object: '' } : declared;
    const auth = request.auth;
    trail.record({
      at: new Date(),
      userId: auth?.userId ?? null,
      userName: auth?.name ?? null,
      mobile: auth ? auth.mobile : pick(request, spec.subject),
      hospitalId: auth?.hospitalId ?? null,
      hospitalName: auth?.hospitalName ?? null,
      action: spec.action,
      objectType: spec.object || null,
      objectId: pick(request, spec.id),
      patient: spec.patient ?? null,
      outcome: outcomeOf(status),
      code: request.errorCode ?? (status >= 400 ? `HTTP${status}` : null),
      httpStatus: status,
      ip: request.ip ?? null,
      method: request.method,
      route: request.routeOptions.url ?? request.url.split('?')[0],
      requestId: request.id,
    });
    done();
  });
}

function captureReplyId(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) {
  if (reply.statusCode < 400 && typeof payload === 'string') {
    try {
      const id = (JSON.parse(payload) as { data?: { id?: unknown } }).data?.id;
      if (typeof id === 'number' || typeof id === 'string') request.auditReplyId = String(id);
    } catch {
      // Not JSON: nothing to read the id from.
    }
  }
  done(null, payload);
}

export default fp(audit, { name: 'audit', dependencies: ['platform'] });
