/**
 * A client of the video rooms' signalling socket for API tests (server/video/hub.ts):
 * keeps everything it hears and waits for a message by predicate.
 */
import type { FastifyInstance } from 'fastify';
import WebSocket from 'ws';
import { APP_ID } from './app';

export const VIDEO_SOCKET = '/api/consult/v1/video/socket';

export class VideoClient {
  heard: Array<Record<string, any>> = [];
  private waiters: Array<{ match: (m: Record<string, any>) => boolean; resolve: (m: Record<string, any>) => void }> = [];
  closed: Promise<number>;
  constructor(readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      const m = JSON.parse(String(raw));
      this.heard.push(m);
      this.waiters = this.waiters.filter((w) => (w.match(m) ? (w.resolve(m), false) : true));
    });
    this.closed = new Promise((resolve) => ws.on('close', (code) => resolve(code)));
  }
  static async open(base: string): Promise<VideoClient> {
    const ws = new WebSocket(`${base.replace('http', 'ws')}${VIDEO_SOCKET}`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    return new VideoClient(ws);
  }
  send(m: Record<string, unknown>) {
    this.ws.send(JSON.stringify(m));
  }
  next(match: (m: Record<string, any>) => boolean): Promise<Record<string, any>> {
    const seen = this.heard.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }
  async join(token: string, consultationId: number) {
    this.send({ type: 'join', appId: APP_ID, token, consultationId });
    return this.next((m) => m.type === 'welcome' || m.type === 'error');
  }
}

/** Listens on a free loopback port: the base URL. */
export async function listenOn(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const a = app.server.address();
  return `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
}
