/**
 * /api/file/v1: the file service (rules in ../files/service.ts; this file translates HTTP).
 *   GET  /policy/:purpose                what a purpose accepts: types, max size, chunk size, pixels
 *   POST /upload?purpose&ownerId&name    a small file (at most one chunk) as the raw body
 *   POST /upload/init                    {purpose, ownerId, name, size} → an upload of chunkCount chunks
 *   PUT  /upload/:id/chunk/:n            chunk n as the raw body (sent again: replaces it)
 *   GET  /upload/:id                     which chunks arrived (to resume after a broken connection)
 *   POST /upload/:id/complete            joins, sniffs, hashes and keeps the file
 *   GET  /detail/:id                     a kept file's name, type, size and SHA-256
 *   GET  /download/:id                   its content
 *   POST /delete/:id                     deletes a kept file or drops an unfinished upload
 * Reading needs a read right of some owner kind, writing a write right (the gate); the
 * owner's own right and scope are the domain's judgement.
 */
import type { FastifyInstance } from 'fastify';
import { completeUpload, deleteFile, fileMeta, initUpload, openFile, policyOf, putChunk, uploadSmall, uploadStatus } from '../files/service';
import { CHUNK_SIZE, OWNER_KINDS, PURPOSES } from '../files/purposes';
import { ok, replies, sendInline } from '../lib/reply';
import { caller } from '../plugins/auth';

const purpose = { type: 'string', enum: Object.keys(PURPOSES) } as const;
const ownerId = { type: 'integer', minimum: 1, maximum: 2147483647 } as const;
const name = { type: 'string', minLength: 1, maxLength: 255 } as const;
const fileId = { type: 'string', format: 'uuid' } as const;
const idParams = { type: 'object', required: ['id'], properties: { id: fileId } } as const;

const fileMetaSchema = {
  type: 'object',
  required: ['id', 'purpose', 'ownerKind', 'ownerId', 'name', 'type', 'size', 'sha256', 'createdAt'],
  properties: {
    id: fileId,
    purpose: { type: 'string' },
    ownerKind: { type: 'string' },
    ownerId: { type: 'integer' },
    name: { type: 'string' },
    type: { type: 'string', description: 'MIME type sniffed from the content' },
    size: { type: 'integer' },
    sha256: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
  },
} as const;

const statusSchema = {
  type: 'object',
  required: ['id', 'chunkSize', 'chunkCount', 'received', 'complete'],
  properties: {
    id: fileId,
    chunkSize: { type: 'integer' },
    chunkCount: { type: 'integer' },
    received: { type: 'array', items: { type: 'integer' } },
    complete: { type: 'boolean' },
  },
} as const;

const policySchema = {
  type: 'object',
  required: ['purpose', 'ownerKind', 'types', 'maxBytes', 'chunkSize'],
  properties: {
    purpose: { type: 'string' },
    ownerKind: { type: 'string' },
    types: { type: 'array', items: { type: 'string' } },
    maxBytes: { type: 'integer' },
    chunkSize: { type: 'integer' },
    pixels: { type: 'object', required: ['width', 'height'], properties: { width: { type: 'integer' }, height: { type: 'integer' } } },
  },
} as const;

const FAILURES = [400, 401, 403, 404, 409, 413, 422];
// The rights of any owner kind let a call through the gate; the domain then judges the
// file's own owner (its kind's right, its scope).
const anyOf = (rights: (k: (typeof OWNER_KINDS)[string]) => string[]) => [...new Set(Object.values(OWNER_KINDS).flatMap(rights))];
const READ = { permission: anyOf((k) => k.read) };
const WRITE = { permission: anyOf((k) => k.write) };
// A chunk travels with a little room; a body over it is UAA413 before any handler runs.
const RAW_LIMIT = CHUNK_SIZE + 1024;

export default async function fileRoutes(fastify: FastifyInstance) {
  // Raw bytes for the upload calls of this service only (encapsulated): whatever the
  // client says the type is, the service sniffs the content itself.
  fastify.addContentTypeParser(/^(application\/(octet-stream|pdf|dicom)|image\/[\w.+-]+)/, { parseAs: 'buffer', bodyLimit: RAW_LIMIT }, (_req, body, done) =>
    done(null, body),
  );

  fastify.get<{ Params: { purpose: string } }>(
    '/policy/:purpose',
    {
      config: { session: true, audit: 'none' },
      schema: {
        tags: ['file'],
        summary: 'What a purpose accepts: MIME types, largest size, chunk size of a resumable upload, exact pixels of a picture',
        params: { type: 'object', required: ['purpose'], properties: { purpose } },
        response: replies(policySchema),
      },
    },
    async (request) => ok(policyOf(request.params.purpose)),
  );

  fastify.post<{ Querystring: { purpose: string; ownerId: number; name: string }; Body: Buffer }>(
    '/upload',
    {
      config: { ...WRITE, audit: { action: 'upload', object: 'file', id: 'reply' } },
      bodyLimit: RAW_LIMIT,
      schema: {
        tags: ['file'],
        summary: 'Upload a small file (at most chunkSize bytes) as the raw request body; larger files go through /upload/init',
        querystring: { type: 'object', required: ['purpose', 'ownerId', 'name'], properties: { purpose, ownerId, name } },
        response: replies(fileMetaSchema, FAILURES),
      },
    },
    async (request) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const kept = await uploadSmall(fastify.db, fastify.storage, caller(request), request.query, body);
      request.auditReplyId = kept.id;
      return ok(kept);
    },
  );

  fastify.post<{ Body: { purpose: string; ownerId: number; name: string; size: number } }>(
    '/upload/init',
    {
      config: { ...WRITE, audit: { action: 'upload', object: 'file', id: 'reply' } },
      schema: {
        tags: ['file'],
        summary: 'Start a resumable upload of `size` bytes in chunks of chunkSize',
        body: {
          type: 'object',
          required: ['purpose', 'ownerId', 'name', 'size'],
          additionalProperties: false,
          properties: { purpose, ownerId, name, size: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
        },
        response: replies(statusSchema, FAILURES),
      },
    },
    async (request) => {
      const status = await initUpload(fastify.db, caller(request), request.body);
      request.auditReplyId = status.id;
      return ok(status);
    },
  );

  fastify.put<{ Params: { id: string; n: number }; Body: Buffer }>(
    '/upload/:id/chunk/:n',
    {
      config: { ...WRITE, audit: 'none' },
      bodyLimit: RAW_LIMIT,
      schema: {
        tags: ['file'],
        summary: 'Chunk n (from 0) of an upload as the raw body: chunkSize bytes, the last one the rest; sent again it replaces the first',
        params: { type: 'object', required: ['id', 'n'], properties: { id: fileId, n: { type: 'integer', minimum: 0, maximum: 100000 } } },
        response: replies(statusSchema, FAILURES),
      },
    },
    async (request) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      return ok(await putChunk(fastify.db, fastify.storage, caller(request), request.params.id, request.params.n, body));
    },
  );

  fastify.get<{ Params: { id: string } }>(
    '/upload/:id',
    {
      config: { ...WRITE, audit: 'none' },
      schema: { tags: ['file'], summary: 'Which chunks of an upload arrived (to resume it)', params: idParams, response: replies(statusSchema, FAILURES) },
    },
    async (request) => ok(await uploadStatus(fastify.db, caller(request), request.params.id)),
  );

  fastify.post<{ Params: { id: string } }>(
    '/upload/:id/complete',
    {
      config: { ...WRITE, audit: { action: 'upload', object: 'file', id: 'params.id' } },
      schema: {
        tags: ['file'],
        summary: 'Join the chunks and keep the file: type sniffed from its bytes, size and pixels checked, SHA-256 stored (FILE004 names missing chunks)',
        params: idParams,
        response: replies(fileMetaSchema, FAILURES),
      },
    },
    async (request) => ok(await completeUpload(fastify.db, fastify.storage, caller(request), request.params.id)),
  );

  fastify.get<{ Params: { id: string } }>(
    '/detail/:id',
    {
      config: { ...READ, audit: { action: 'read', object: 'file', id: 'params.id' } },
      schema: { tags: ['file'], summary: 'A kept file: name, type, size, SHA-256, owner', params: idParams, response: replies(fileMetaSchema, FAILURES) },
    },
    async (request) => ok(await fileMeta(fastify.db, caller(request), request.params.id)),
  );

  fastify.get<{ Params: { id: string } }>(
    '/download/:id',
    {
      config: { ...READ, audit: { action: 'download', object: 'file', id: 'params.id' } },
      schema: { tags: ['file'], summary: 'The content of a kept file, to whoever may read its owner', params: idParams },
    },
    async (request, reply) => {
      const { meta, content } = await openFile(fastify.db, fastify.storage, caller(request), request.params.id);
      return sendInline(reply, meta, content);
    },
  );

  fastify.post<{ Params: { id: string } }>(
    '/delete/:id',
    {
      config: { ...WRITE, audit: { action: 'delete', object: 'file', id: 'params.id' } },
      schema: { tags: ['file'], summary: 'Delete a kept file (what it was attached to forgets it) or drop an unfinished upload', params: idParams, response: replies({ type: 'null' }, FAILURES) },
    },
    async (request) => {
      await deleteFile(fastify.db, fastify.storage, caller(request), request.params.id);
      return ok(null);
    },
  );
}
