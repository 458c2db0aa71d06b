/** Logging in through the real login call, for API tests. */
import type { FastifyInstance } from 'fastify';
import { DEMO_PASSWORD } from '../../mock/identity';
import { appHeaders } from './app';

export const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

export function form(fields: Record<string, string | number | boolean | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) p.append(k, String(v));
  return p.toString();
}

export async function loginReply(app: FastifyInstance, fields: Record<string, string | number | boolean | undefined>) {
  return app.inject({
    method: 'POST',
    url: '/api/uaa/v1/login',
    headers: { ...appHeaders, 'content-type': 'application/x-www-form-urlencoded' },
    payload: form({ loginType: 'password', ...fields }),
  });
}

/** Logs in with the demo password (or `password`) and returns the token; fails the test otherwise. */
export async function login(app: FastifyInstance, mobile: string, password = DEMO_PASSWORD, extra: Record<string, string | number | boolean> = {}): Promise<string> {
  const r = await loginReply(app, { mobile, password: b64(password), ...extra });
  const body = r.json();
  if (body.status !== '0') throw new Error(`login ${mobile} failed: ${r.body}`);
  return body.data.token;
}

export function authed(token: string, extra: Record<string, string> = {}) {
  return { ...appHeaders, 'x-auth-token': token, ...extra };
}
