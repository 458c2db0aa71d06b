import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/** A kept file's content inline (the browser shows images and PDF itself), named in UTF-8. */
export function sendInline(reply: FastifyReply, meta: { type: string; size: number; name: string }, content: Readable): FastifyReply {
  return reply
    .type(meta.type)
    .header('content-length', meta.size)
    .header('content-disposition', `inline; filename*=UTF-8''${encodeURIComponent(meta.name)}`)
    .send(content);
}

/** The one reply envelope: `{status:"0", data}`; failures are built by the error handler. */
export function ok<T>(data: T): { status: '0'; data: T } {
  return { status: '0', data };
}

/** Response schema map for a route: the success envelope around `data`, and the error reply. */
export function replies(data: object, statuses: number[] = [400, 401, 403, 404, 409, 422, 429, 500]) {
  const out: Record<number, object> = {
    200: {
      type: 'object',
      required: ['status'],
      properties: { status: { type: 'string', const: '0' }, data },
    },
  };
  for (const s of statuses) out[s] = { $ref: 'reply.json#/definitions/error' };
  return out;
}
