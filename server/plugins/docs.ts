/**
 * OpenAPI 3 generated from the route schemas. The document is always built (tests and
 * tools read app.swagger()); it is served only when API_DOCS is on (the default outside
 * production): JSON at /api/docs/json (and YAML) to a session holding DOCS_PERMISSION,
 * browsable at /api/docs. The browsing page is Swagger UI's static bundle, which holds
 * nothing of ours: it fetches the document with the token of the user signed in to the
 * platform in the same browser, so it shows the API only to that user.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import app from '../../config/app.json';
import { SERVICES } from '../routes/services';
import { version } from '../version';
import { DOCS_PREFIX } from './auth';


/**
 * Swagger UI's request interceptor, serialised into its initializer script (a file, not
 * inline): adds the app id and the platform's stored token to every call it makes.
 */
// eslint-disable-next-line @typescript-eslint/no-implied-eval
const attachToken = new Function(
  'req',
  `var token = window.localStorage.getItem(${JSON.stringify(app.tokenStorageKey)});
   if (token) req.headers['X-Auth-Token'] = token;
   req.headers['X-App-Id'] = ${JSON.stringify(app.clientAppId)};
   return req;`,
);

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
  if (fastify.config.apiDocs) {
    await fastify.register(swaggerUi, { routePrefix: DOCS_PREFIX, uiConfig: { requestInterceptor: attachToken } as object });
  }
}

export default fp(docs, { name: 'docs' });
