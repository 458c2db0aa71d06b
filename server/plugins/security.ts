/**
 * Security headers on every response (OWASP ASVS V14.4): a Content-Security-Policy
 * without inline script, no framing, no content sniffing, a referrer policy; API answers
 * are never cached (they carry patient data and tokens' views); HSTS when the request
 * came over TLS (directly, or through a trusted proxy's X-Forwarded-Proto).
 * Registered right after the platform plugin; touches no domain data.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export interface SecurityOptions {
  /** Hashes ('sha256-…') of the inline scripts the built index.html needs, if any. */
  scriptHashes?: string[];
  /** Origins the client calls besides its own (API_BASE). */
  connectOrigins?: string[];
}

export function contentSecurityPolicy(opts: SecurityOptions = {}): string {
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    // 'wasm-unsafe-eval': the viewer's image codecs are WebAssembly. 'unsafe-eval': Formily
    // compiles the schema forms' {{ }} expressions (reactions, fillers) with new Function;
    // without it the registration form does not render. No inline script is allowed.
    'script-src': ["'self'", "'unsafe-eval'", "'wasm-unsafe-eval'", ...(opts.scriptHashes ?? []).map((h) => `'${h}'`)],
    'script-src-attr': ["'none'"],
    // antd writes its CSS-in-JS into <style> elements at run time.
    'style-src': ["'self'", "'unsafe-inline'"],
    // Captchas and avatars come as data: URLs, rendered images and downloads as blob: URLs.
    'img-src': ["'self'", 'data:', 'blob:'],
    'font-src': ["'self'", 'data:'],
    // A consultation's PDF materials are previewed in a frame from a blob: URL (default-src alone refused it).
    'frame-src': ["'self'", 'blob:'],
    'connect-src': ["'self'", ...(opts.connectOrigins ?? [])],
    'worker-src': ["'self'", 'blob:'],
    'media-src': ["'self'", 'data:', 'blob:'],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
  };
  return Object.entries(directives)
    .map(([name, values]) => `${name} ${values.join(' ')}`)
    .join('; ');
}

const HSTS = 'max-age=31536000; includeSubDomains';

async function security(fastify: FastifyInstance, opts: SecurityOptions) {
  const csp = contentSecurityPolicy(opts);
  // Callback style: this hook runs on every response.
  fastify.addHook('onSend', (request, reply, payload, done) => {
    reply.header('Content-Security-Policy', csp);
    reply.header('X-Frame-Options', 'DENY');
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'no-referrer');
    // request.protocol is "https" for TLS, or behind TRUST_PROXY when the proxy says so.
    if (request.protocol === 'https') reply.header('Strict-Transport-Security', HSTS);
    if (request.url.startsWith('/api/')) reply.header('Cache-Control', 'no-store');
    done(null, payload);
  });
}

export default fp(security, { name: 'security' });
