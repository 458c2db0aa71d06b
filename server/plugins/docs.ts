/** OpenAPI 3 generated from the route schemas: JSON at /api/docs/json, browsable at /api/docs. */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { SERVICES } from '../routes/services';
import { version } from '../version';

async function docs(fastify: FastifyInstance) {
  await fastify.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Regional imaging cloud API', version },
      tags: SERVICES.map((s) => ({ name: s.tag, description: s.description })),
      components: {
        securitySchemes: {
          appId: { type: 'apiKey', in: 'header', name: 'X-App-Id' },
          token: { type: 'apiKey', in: 'header', name: 'X-Auth-Token' },
        },
      },
      security: [{ appId: [], token: [] }],
    },
    // reply.json and friends are referenced by $id; expose them under their own names.
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`).replace(/\.json$/, '') },
  });
  await fastify.register(swaggerUi, { routePrefix: '/api/docs' });
}

export default fp(docs, { name: 'docs' });
