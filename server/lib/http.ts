/**
 * What every HTTP handler needs of a request, kept apart from the plugins that install
 * them (../plugins/platform.ts, ../plugins/auth.ts) so that handlers outside
 * server/routes (DICOMweb, the generic resource routes) and domain code never import a
 * plugin: the route access declaration, the caller, the token, the request's language,
 * the error envelope, and a schema refusal as a catalogue failure.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { translate } from '../../locales';
import type { AuthContext } from '../identity/sessions';
import { AppError, errorTextKey } from './errors';

export interface RouteAccess {
  public?: boolean;
  session?: boolean;
  /** "module:action", or several of which the caller needs any (the handler then checks the one that applies). */
  permission?: string | string[];
  /** Allowed before the caller has chosen a hospital (several memberships). */
  allowWithoutHospital?: boolean;
  /** Allowed while the password has expired (to change it). */
  allowWhenPasswordExpired?: boolean;
  /**
   * Only a caller with region scope passes (PACS006 otherwise): routes that change what
   * the whole region shares (region-owned settings, dictionaries, exam parts, QC rules).
   */
  regionScope?: boolean;
  /** The route reads one row by this path parameter: the authorization test tries another hospital's id. */
  scoped?: { resource: string; param: string };
}

/** The caller of a route that is not public (handlers may rely on it). */
export function caller(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new AppError('UAA005');
  return request.auth;
}

export function tokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-auth-token'];
  if (typeof header === 'string' && header) return header;
  const authz = request.headers.authorization;
  if (authz?.startsWith('Bearer ')) return authz.slice(7).trim() || undefined;
  return undefined;
}

export function t(request: FastifyRequest, key: string, params?: Record<string, unknown>): string {
  return translate(request.lang, key, params);
}

/** Sends a catalogue failure in the envelope with its HTTP status. */
export function sendError(request: FastifyRequest, reply: FastifyReply, err: AppError): FastifyReply {
  const body: Record<string, unknown> = {
    status: err.code,
    message: t(request, errorTextKey(err.code), err.params),
    ...err.extra,
  };
  if (err.httpStatus >= 500) body.requestId = request.id;
  // The audit trail records the code of every refusal (plugins/audit.ts).
  request.errorCode = err.code;
  return reply.code(err.httpStatus).type('application/json; charset=utf-8').send(body);
}

/** ajv keyword → validation.<key> text; the first failing field is named in the reply. */
const KEYWORD_KEYS: Record<string, string> = {
  required: 'validation.required',
  minLength: 'validation.minLength',
  maxLength: 'validation.maxLength',
  minimum: 'validation.minimum',
  maximum: 'validation.maximum',
  exclusiveMinimum: 'validation.minimum',
  exclusiveMaximum: 'validation.maximum',
  enum: 'validation.enum',
  const: 'validation.enum',
  format: 'validation.format',
  pattern: 'validation.pattern',
  type: 'validation.type',
  additionalProperties: 'validation.additionalProperties',
  minItems: 'validation.minItems',
  maxItems: 'validation.maxItems',
  uniqueItems: 'validation.uniqueItems',
};

export function validationFailure(error: FastifyError): AppError {
  const first = error.validation?.[0] as
    | { keyword: string; instancePath?: string; params?: Record<string, any> }
    | undefined;
  if (!first) return new AppError('UAA421', { detail: error.message }, {});
  const pathParts = (first.instancePath ?? '').split('/').filter(Boolean);
  // A missing or extra property is named with the path to its object (items.1.name), so a row's field is not taken for the record's.
  const named = first.params?.missingProperty ?? first.params?.additionalProperty;
  const field = named !== undefined ? [...pathParts, named].join('.') : pathParts.length ? pathParts.join('.') : error.validationContext ?? '';
  const key = KEYWORD_KEYS[first.keyword] ?? 'validation.invalid';
  const limit = first.params?.limit ?? first.params?.comparison;
  return new AppError('UAA421', { detailKey: key, field, limit }, { field });
}

/** A batch call's refusals as sent (BATCH_REFUSED): each row's catalogue code and its words in the caller's language. */
export function refusals(request: FastifyRequest, refused: Array<{ id: number; error: AppError }>): Array<{ id: number; status: string; message: string }> {
  return refused.map(({ id, error }) => ({ id, status: error.code, message: t(request, errorTextKey(error.code), error.params) }));
}
