/**
 * Serves the built UI (dist/) with the SPA fallback: any unknown non-API GET gets
 * index.html and the client router decides (an unknown route shows /404).
 * Hashed assets are cached for a year; index.html never, so a deploy shows at once.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import fastifyStatic from '@fastify/static';

/**
 * CSP hashes of the inline scripts in the built index.html (umi may write some), so the
 * policy allows exactly those and no other inline script.
 */
export function inlineScriptHashes(distDir: string): string[] {
  const index = path.join(distDir, 'index.html');
  if (!fs.existsSync(index)) return [];
  const html = fs.readFileSync(index, 'utf8');
  return [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)]
    .filter((m) => m[1].trim() !== '')
    .map((m) => `sha256-${crypto.createHash('sha256').update(m[1], 'utf8').digest('base64')}`);
}

/** Paths of the JSON API and of DICOMweb, which answer their own 404. */
const SERVICE_PATHS = /^\/(api|dicom-web)(\/|$)/;

async function ui(fastify: FastifyInstance, opts: { distDir: string }) {
  const index = path.join(opts.distDir, 'index.html');
  const built = fs.existsSync(index);
  if (built) {
    await fastify.register(fastifyStatic, {
      root: opts.distDir,
      wildcard: true,
      index: false,
      // Our Cache-Control alone: send's own ("public, max-age=0") is set after setHeaders and replaced it,
      // so every page load asked again for every bundle.
      cacheControl: false,
      setHeaders(res, file) {
        res.setHeader('Cache-Control', file.endsWith('.html') ? 'no-cache' : 'public, max-age=31536000, immutable');
      },
    });
  }
  const sendIndex = (reply: FastifyReply) =>
    reply.header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').sendFile('index.html');
  // The site root is the SPA too (the static handler refuses directory listings).
  if (built) fastify.get('/', { schema: { hide: true } }, (_request, reply) => sendIndex(reply));
  fastify.decorate('spaFallback', (request: FastifyRequest, reply: FastifyReply) => {
    const pathname = request.url.split('?')[0];
    // The services' paths are never a page: a client of /api or /dicom-web must not get HTML with a 200.
    const wantsPage = request.method === 'GET' && !path.extname(pathname) && !SERVICE_PATHS.test(pathname);
    if (built && wantsPage) return sendIndex(reply);
    return reply.code(404).type('text/plain; charset=utf-8').send('Not Found');
  });
}

export default fp(ui, { name: 'ui' });
