/**
 * The room's signalling socket (server/video/hub.ts): joins with the session token as
 * its first message (a browser cannot put a header on a WebSocket), then carries
 * typed messages both ways. One listener list per message type.
 */
export type RoomMessage = { type: string } & Record<string, any>;

/** The server refused the join: a catalogue code, with the parameters of its text (VIDEO002's max). */
export class RoomRefused extends Error {
  constructor(
    code: string,
    readonly params?: Record<string, unknown>,
  ) {
    super(code);
  }
}
type Listener = (m: RoomMessage) => void;

export class RoomSocket {
  private ws?: WebSocket;
  private listeners = new Map<string, Set<Listener>>();
  private closedByUs = false;

  constructor(private url: string) {}

  /** Opens and joins; resolves with the welcome, rejects with the catalogue code of a refusal. */
  join(appId: string, token: string, consultationId: number): Promise<RoomMessage> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url);
      this.ws = ws;
      let welcomed = false;
      ws.onopen = () => ws.send(JSON.stringify({ type: 'join', appId, token, consultationId }));
      ws.onmessage = (event) => {
        const m = JSON.parse(String(event.data)) as RoomMessage;
        if (!welcomed) {
          if (m.type === 'welcome') {
            welcomed = true;
            resolve(m);
          } else if (m.type === 'error') reject(new RoomRefused(String(m.code), m.params));
          return;
        }
        for (const fn of this.listeners.get(m.type) ?? []) fn(m);
      };
      ws.onclose = () => {
        if (!welcomed) reject(new Error('UAA005'));
        else if (!this.closedByUs) for (const fn of this.listeners.get('closed') ?? []) fn({ type: 'closed' });
      };
    });
  }

  on(type: string, fn: Listener): () => void {
    const set = this.listeners.get(type) ?? new Set();
    this.listeners.set(type, set);
    set.add(fn);
    return () => set.delete(fn);
  }

  send(m: RoomMessage): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(m));
  }

  close(): void {
    this.closedByUs = true;
    this.listeners.clear();
    this.ws?.close();
  }
}

/** ws:// or wss:// beside the API (API_BASE when the UI is served elsewhere). */
export function socketUrl(apiBase: string, path: string): string {
  return `${apiBase.replace(/^http/, 'ws')}${path}`;
}
