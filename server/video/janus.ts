/**
 * Janus's VideoRoom as the video rooms' selective forwarding unit (issue #20 item 6),
 * when JANUS_URL is set. The browsers still talk only to the platform's signalling
 * socket (./hub.ts); this module turns their messages into Janus requests (through
 * janode, ./janode.ts) and Janus's answers and events back into messages for them.
 *
 * - The room: a meeting's Janus room id is derived from its meeting id, and whichever
 *   instance gets a participant first creates it ("already exists", 427, is success:
 *   several platform instances share one Janus room). It is created on every join, so a
 *   restarted Janus gets it back. The room stays when the last participant leaves (not
 *   permanent: it lives in Janus's memory until Janus restarts): destroying it could
 *   race a participant joining through another instance, and an empty room costs Janus
 *   nothing but a table entry.
 * - The cap: JANUS_ROOM_MAX participants, counted by Janus (all instances); Janus's own
 *   `publishers` limit is the same number, the backstop for two joining at once.
 * - A participant: a publisher handle joined at once (the browser's offer is published
 *   with it, Janus's answer goes back), and a subscriber handle per other participant's
 *   feed (Janus offers, the browser answers); ICE candidates trickle both ways.
 * - Who publishes: Janus tells every publisher handle of a room when a feed appears or
 *   goes, whichever instance holds it, so each participant is subscribed to every other
 *   one's feed across instances without the platform relaying anything; joining, a
 *   participant gets the feeds already there in Janus's answer (no gap in between).
 * - Leaving detaches the participant's handles (Janus then tells the others).
 * - Failures: a Janus that does not answer within JANUS_TIMEOUT_MS fails the join with
 *   VIDEO003 and a log line; losing the connection later tells this instance's
 *   participants the same (the media through Janus is gone), and the next join connects
 *   again.
 *
 * The socket messages, `type: 'sfu'` (feed absent: the participant's own publisher):
 *   browser → server  {op:'publish', jsep}          the publisher's offer
 *                     {op:'answer', feed, jsep}     the answer to a subscription's offer
 *                     {op:'trickle', feed?, candidate}  (candidate null: gathering done)
 *   server → browser  {op:'published', jsep}        Janus's answer to the publisher
 *                     {op:'offer', feed, peerId, user, jsep}  a feed to receive
 *                     {op:'gone', feed}             a feed ended (its connection closes)
 *                     {op:'trickle', feed?, candidate}
 */
import crypto from 'node:crypto';
import { loadJanode, type JanodeConnection, type JanodeSession, type Publisher, type VideoRoomHandle } from './janode';

export interface JanusConfig {
  url: string;
  apiSecret?: string;
  roomMax: number;
  timeoutMs: number;
}

export interface JanusLog {
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

/** Who a feed belongs to, as its Janus display carries it (another instance's participant too). */
export interface FeedOwner {
  peerId: string;
  user: { id: number; name: string };
}

/** Janus's "room already exists". */
const ROOM_EXISTS = 427;

/** A meeting's Janus room: a number (Janus's default room ids), 48 bits of a hash of the meeting id. */
export function janusRoomId(meetingId: string): number {
  return parseInt(crypto.createHash('sha256').update(meetingId).digest('hex').slice(0, 12), 16) || 1;
}

/** Janus, or the way to it, did not answer: the browser is told VIDEO003. */
export class JanusUnavailable extends Error {
  readonly code = 'VIDEO003';
}

/** The room holds JANUS_ROOM_MAX participants already: VIDEO002. */
export class JanusRoomFull extends Error {
  readonly code = 'VIDEO002';
  constructor(readonly max: number) {
    super(`video room full (${max})`);
  }
}

interface Ready {
  connection: JanodeConnection;
  session: JanodeSession;
}

export class JanusGateway {
  private ready?: Promise<Ready>;
  private participants = new Set<JanusParticipant>();
  private closed = false;

  constructor(
    readonly config: JanusConfig,
    readonly log: JanusLog,
    /** This instance's participants lost Janus (connection closed or session gone). */
    private onLost: (participant: JanusParticipant) => void,
  ) {}

  /** `promise`, or JanusUnavailable after the timeout (whatever it later does). */
  timed<T>(promise: Promise<T>, what: string): Promise<T> {
    let timer: NodeJS.Timeout;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new JanusUnavailable(`janus: no answer to ${what} within ${this.config.timeoutMs} ms`)), this.config.timeoutMs);
    });
    return Promise.race([promise, late]).finally(() => clearTimeout(timer));
  }

  private connect(): Promise<Ready> {
    this.ready ??= (async () => {
      const { janode } = await loadJanode();
      // One attempt: a join waits for Janus at most the timeout, and the next join tries again.
      const opening = janode.connect({ address: { url: this.config.url, apisecret: this.config.apiSecret }, max_retries: 0, retry_time_secs: 1 });
      let connection: JanodeConnection;
      try {
        connection = await this.timed(opening, 'connect');
      } catch (e) {
        // A connection that opens after we gave up is closed at once.
        void opening.then((c) => c.close()).catch(() => undefined);
        throw e instanceof JanusUnavailable ? e : new JanusUnavailable(`janus: ${(e as Error).message || 'connection refused'}`);
      }
      const lost = (why: string) => {
        if (this.ready !== current) return;
        this.ready = undefined;
        if (this.closed) return;
        this.log.error({ janusUrl: this.config.url, why }, 'janus connection lost: its participants are told VIDEO003');
        for (const p of [...this.participants]) this.onLost(p);
      };
      connection.once(janode.EVENT.CONNECTION_CLOSED, () => lost('closed'));
      connection.once(janode.EVENT.CONNECTION_ERROR, (e: Error) => lost(e?.message ?? 'error'));
      const session = await this.timed(connection.create(), 'create session');
      session.once(janode.EVENT.SESSION_DESTROYED, () => lost('session destroyed'));
      return { connection, session };
    })();
    const current = this.ready;
    current.catch(() => {
      if (this.ready === current) this.ready = undefined;
    });
    return current;
  }

  /** A videoroom handle on the shared session. */
  async attach(): Promise<VideoRoomHandle> {
    const { session } = await this.connect();
    const { videoRoom } = await loadJanode();
    return this.timed(session.attach(videoRoom) as Promise<VideoRoomHandle>, 'attach');
  }

  /**
   * A participant enters the meeting's room: the room made sure of, the cap checked, a
   * publisher handle joined. Throws JanusUnavailable or JanusRoomFull.
   */
  async enter(meetingId: string, owner: FeedOwner, send: (m: Record<string, unknown>) => void): Promise<JanusParticipant> {
    const room = janusRoomId(meetingId);
    let handle: VideoRoomHandle | undefined;
    try {
      handle = await this.attach();
      try {
        await this.timed(handle.create({ room, description: `meeting ${meetingId}`, max_publishers: this.config.roomMax, permanent: false }), 'create room');
      } catch (e) {
        if ((e as { _code?: number })._code !== ROOM_EXISTS) throw e;
      }
      const { participants } = await this.timed(handle.listParticipants({ room }), 'list participants');
      if (participants.length >= this.config.roomMax) throw new JanusRoomFull(this.config.roomMax);
      const participant = new JanusParticipant(this, room, handle, owner, send);
      await participant.join();
      this.participants.add(participant);
      return participant;
    } catch (e) {
      void handle?.detach().catch(() => undefined);
      if (e instanceof JanusRoomFull) throw e;
      const error = e instanceof JanusUnavailable ? e : new JanusUnavailable(`janus: ${(e as Error).message}`);
      this.log.error({ janusUrl: this.config.url, meetingId, err: error.message }, 'janus unreachable: the participant is refused with VIDEO003');
      throw error;
    }
  }

  forget(p: JanusParticipant): void {
    this.participants.delete(p);
  }

  async close(): Promise<void> {
    this.closed = true;
    const ready = this.ready;
    this.ready = undefined;
    await Promise.all([...this.participants].map((p) => p.leave()));
    if (!ready) return;
    try {
      const { connection, session } = await ready;
      await this.timed(session.destroy(), 'destroy session').catch(() => undefined);
      await connection.close().catch(() => undefined);
    } catch {
      // Never connected.
    }
  }
}

interface Subscription {
  feed: number;
  handle?: VideoRoomHandle;
  gone: boolean;
}

/** One participant's handles: its publisher, and a subscriber per feed it receives. */
export class JanusParticipant {
  private feed?: number;
  private privateId?: number;
  private subs = new Map<number, Subscription>();
  private left = false;
  /** The browser's messages one after another (a candidate never overtakes its offer). */
  private queue: Promise<void> = Promise.resolve();
  private pending: Publisher[] = [];
  private live = false;

  constructor(
    private gateway: JanusGateway,
    readonly room: number,
    private publisher: VideoRoomHandle,
    private owner: FeedOwner,
    private send: (m: Record<string, unknown>) => void,
  ) {}

  async join(): Promise<void> {
    const { janode, videoRoom } = await loadJanode();
    const pub = this.publisher;
    pub.on(videoRoom.EVENT.VIDEOROOM_PUB_LIST, ({ publishers }: { publishers: Publisher[] }) => this.feedsAppeared(publishers));
    for (const ended of [videoRoom.EVENT.VIDEOROOM_UNPUBLISHED, videoRoom.EVENT.VIDEOROOM_LEAVING]) {
      pub.on(ended, ({ feed }: { feed: number }) => {
        if (feed !== this.feed) void this.feedEnded(feed);
      });
    }
    pub.on(janode.EVENT.HANDLE_TRICKLE, ({ candidate }: { candidate: unknown }) => this.send({ type: 'sfu', op: 'trickle', candidate }));
    const joined = await this.gateway.timed(pub.joinPublisher({ room: this.room, display: JSON.stringify(this.owner) }), 'join');
    this.feed = joined.feed;
    this.privateId = joined.private_id;
    this.pending.push(...joined.publishers);
  }

  /** After the welcome: the feeds already there are offered (the browser listens from now on). */
  start(): void {
    this.live = true;
    const feeds = this.pending;
    this.pending = [];
    this.feedsAppeared(feeds);
  }

  /** A message of the browser's (type 'sfu'). */
  handle(msg: Record<string, unknown>): Promise<void> {
    const run = this.queue.then(() => this.perform(msg));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async perform(msg: Record<string, unknown>): Promise<void> {
    if (this.left) return;
    const feed = typeof msg.feed === 'number' ? msg.feed : undefined;
    switch (msg.op) {
      case 'publish': {
        if (!isJsep(msg.jsep, 'offer')) return;
        const r = await this.gateway.timed(this.publisher.configure({ jsep: msg.jsep, audio: true, video: true }), 'publish');
        this.send({ type: 'sfu', op: 'published', jsep: r.jsep });
        return;
      }
      case 'answer': {
        const sub = feed === undefined ? undefined : this.subs.get(feed);
        if (!sub?.handle || sub.gone || !isJsep(msg.jsep, 'answer')) return;
        await this.gateway.timed(sub.handle.start({ jsep: msg.jsep }), 'start');
        return;
      }
      case 'trickle': {
        const candidate = msg.candidate === null || msg.candidate === undefined ? null : (msg.candidate as Record<string, unknown>);
        if (candidate !== null && typeof candidate !== 'object') return;
        const handle = feed === undefined ? this.publisher : this.subs.get(feed)?.handle;
        if (handle) await this.gateway.timed(handle.trickle(candidate), 'trickle');
        return;
      }
      default:
    }
  }

  private feedsAppeared(publishers: Publisher[]): void {
    if (!this.live) {
      this.pending.push(...publishers);
      return;
    }
    for (const p of publishers) {
      if (p.feed === this.feed || this.subs.has(p.feed) || this.left) continue;
      const owner = ownerOf(p.display);
      if (!owner) continue;
      const sub: Subscription = { feed: p.feed, gone: false };
      this.subs.set(p.feed, sub);
      void this.subscribe(sub, owner).catch((e) => {
        this.subs.delete(p.feed);
        if (!sub.gone && !this.left) this.gatewayWarn(e, p.feed);
      });
    }
  }

  private gatewayWarn(e: unknown, feed: number) {
    this.send({ type: 'sfu', op: 'gone', feed });
    this.gateway.log.warn({ err: (e as Error).message, feed, room: this.room }, 'janus: subscribing to a feed failed');
  }

  private async subscribe(sub: Subscription, owner: FeedOwner): Promise<void> {
    const { janode } = await loadJanode();
    const handle = await this.gateway.attach();
    sub.handle = handle;
    if (sub.gone || this.left) {
      await handle.detach().catch(() => undefined);
      return;
    }
    handle.on(janode.EVENT.HANDLE_TRICKLE, ({ candidate }: { candidate: unknown }) => this.send({ type: 'sfu', op: 'trickle', feed: sub.feed, candidate }));
    const joined = await this.gateway.timed(handle.joinSubscriber({ room: this.room, streams: [{ feed: sub.feed }], private_id: this.privateId }), 'subscribe');
    if (sub.gone || this.left) return;
    this.send({ type: 'sfu', op: 'offer', feed: sub.feed, peerId: owner.peerId, user: owner.user, jsep: joined.jsep });
  }

  private async feedEnded(feed: number): Promise<void> {
    const sub = this.subs.get(feed);
    if (!sub) return;
    sub.gone = true;
    this.subs.delete(feed);
    this.send({ type: 'sfu', op: 'gone', feed });
    await sub.handle?.detach().catch(() => undefined);
  }

  /** Detaches every handle (the publisher's detach tells the others' handles). */
  async leave(): Promise<void> {
    if (this.left) return;
    this.left = true;
    this.gateway.forget(this);
    const handles = [...this.subs.values()].map((s) => s.handle).filter((h): h is VideoRoomHandle => !!h);
    for (const s of this.subs.values()) s.gone = true;
    this.subs.clear();
    await Promise.all([this.publisher, ...handles].map((h) => this.gateway.timed(h.detach(), 'detach').catch(() => undefined)));
  }
}

function isJsep(value: unknown, type: 'offer' | 'answer'): boolean {
  const jsep = value as { type?: unknown; sdp?: unknown } | null;
  return !!jsep && jsep.type === type && typeof jsep.sdp === 'string' && jsep.sdp.length < 64 * 1024;
}

function ownerOf(display: string | undefined): FeedOwner | undefined {
  try {
    const owner = JSON.parse(display ?? '') as FeedOwner;
    return typeof owner?.peerId === 'string' && typeof owner.user?.id === 'number' ? owner : undefined;
  } catch {
    return undefined;
  }
}
