/**
 * The SMS gateway is outside the product: an interface with two providers.
 * - `log` (default, demo and tests): writes the text to the server log and to the
 *   sms_outbox table, which an administrator can read in demo mode.
 * - `http`: POSTs JSON {mobile, text} to SMS_GATEWAY_URL with the key in the
 *   Authorization header; adapt the body to the operator's API here.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Queryable } from '../db';
import type { IdentityConfig } from '../config';
import { AppError } from '../lib/errors';

export interface SmsProvider {
  readonly name: string;
  send(q: Queryable, mobile: string, text: string): Promise<void>;
}

export class LogSmsProvider implements SmsProvider {
  readonly name = 'log';
  constructor(private readonly log: FastifyBaseLogger) {}

  async send(q: Queryable, mobile: string, text: string) {
    this.log.info({ mobile, sms: text }, 'SMS (log provider)');
    await q.query('INSERT INTO sms_outbox (mobile, text, provider, status) VALUES ($1, $2, $3, $4)', [mobile, text, this.name, 'logged']);
  }
}

export class HttpSmsProvider implements SmsProvider {
  readonly name = 'http';
  constructor(private readonly url: string, private readonly key: string | undefined, private readonly log: FastifyBaseLogger) {}

  async send(q: Queryable, mobile: string, text: string) {
    let status = 'sent';
    try {
      const r = await fetch(this.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(this.key ? { Authorization: `Bearer ${this.key}` } : {}) },
        body: JSON.stringify({ mobile, text }),
        signal: AbortSignal.timeout(10_000),
      });
      if (!r.ok) status = `http ${r.status}`;
    } catch (e) {
      this.log.error({ err: e }, 'SMS gateway unreachable');
      status = 'unreachable';
    }
    // The text holds a code: the outbox keeps only a masked copy for the record.
    await q.query('INSERT INTO sms_outbox (mobile, text, provider, status) VALUES ($1, $2, $3, $4)', [mobile, text.replace(/\d{6}/g, '******'), this.name, status]);
    if (status !== 'sent') throw new AppError('SMS103');
  }
}

export function createSmsProvider(config: IdentityConfig, log: FastifyBaseLogger): SmsProvider {
  if (config.smsProvider === 'http') {
    if (!config.smsGatewayUrl) throw new Error('SMS_PROVIDER=http needs SMS_GATEWAY_URL');
    return new HttpSmsProvider(config.smsGatewayUrl, config.smsGatewayKey, log);
  }
  return new LogSmsProvider(log);
}
