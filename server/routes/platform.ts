/** Platform routes outside the versioned services: the health probe. */
import type { FastifyInstance } from 'fastify';
import { ok, replies } from '../lib/reply';
import { version } from '../version';

/** A probe under load must not queue behind real work: the database ping is reused for a second. */
const PING_TTL_MS = 1000;

export default async function platformRoutes(fastify: FastifyInstance) {
  let lastPing = 0;
  let dbOk = true;
  let pinging: Promise<void> | undefined;
  const ping = () => {
    pinging ??= fastify.db
      .query('SELECT 1')
      .then(() => { dbOk = true; })
      .catch(() => { dbOk = false; })
      .finally(() => { lastPing = Date.now(); pinging = undefined; });
    return pinging;
  };

  fastify.get(
    '/health',
    {
      schema: {
        tags: ['platform'],
        summary: 'Liveness and database kind; needs no headers',
        security: [],
        response: replies({ $ref: 'reply.json#/definitions/health' }, [500]),
      },
      config: { public: true, audit: 'none' },
    },
    async () => {
      if (Date.now() - lastPing > PING_TTL_MS) await ping();
      return ok({ db: fastify.db.kind, dbOk, version, uptime: process.uptime() });
    },
  );
}
