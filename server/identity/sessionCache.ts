/**
 * Resolved sessions kept for a moment in this process (token hash → AuthContext), so
 * an authenticated call does not pay the session lookup each time (auth_session: a
 * five-table read and a round trip, most of a cheap call's cost). Used by
 * resolveSession only. It stays correct with several instances on one database:
 * - an entry lives AUTH_CACHE_MS at most (sessions.ts bounds it), never past the
 *   session's own end;
 * - a write on this instance to a table auth_session reads clears the cache once it
 *   has committed, before the writer's caller gets its reply (Db.observeCommits and
 *   AUTH_WRITE below), so a logout, a revoke, a role edit or a disabled user holds on
 *   the very next call;
 * - a write on another instance reaches this one as NOTIFY auth_changed (migration
 *   0014's triggers) on a LISTEN connection; while that connection is down nothing is
 *   cached, and everything is dropped when it goes down and when it is back.
 * A lookup under way while the cache is cleared does not store what it read, which
 * may predate the write (the generation check).
 */
import type { Db } from '../db';
import type { AuthContext } from './authContext';

export const AUTH_CHANNEL = 'auth_changed';

/** Enough for every active session of a large region; evicted oldest first beyond it. */
const MAX_ENTRIES = 10_000;

/**
 * Writes that may change what auth_session answers. Watching the SQL in the Db layer,
 * rather than calling the cache from each writer, covers every one of them (identity
 * and user-centre routes, generic table resources, the seed, tests and scripts that
 * share the Db) and any added later, where a forgotten call would leave a revoked
 * session working; it costs one regex test per committed statement, and a false match
 * only a refill. Excluded, as they change nothing auth_session answers for an existing
 * token: a new session (INSERT INTO session) and the per-request touch (UPDATE session
 * SET last_seen_at, in sessions.ts).
 */
const AUTH_WRITE =
  /\b(?:(?:insert\s+into|update|delete\s+from|truncate(?:\s+table)?)\s+(?:only\s+)?(?:public\.)?"?(?:app_user|user_membership|role|org)\b|(?:update|delete\s+from|truncate(?:\s+table)?)\s+(?:only\s+)?(?:public\.)?"?session\b(?!"?\s+set\s+last_seen_at\b))/i;

interface Entry {
  ctx: AuthContext;
  until: number;
  /** Half its life: a hit after this starts the next lookup, so a busy session's callers rarely wait for one. */
  refreshAt: number;
}

export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  private readonly running = new Map<string, { ticket: number; lookup: Promise<AuthContext | null> }>();
  private generation = 0;
  /** Whether other instances' changes can reach us (LISTEN is up); nothing is stored otherwise. */
  private live = false;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  get(tokenHash: string): AuthContext | undefined {
    const entry = this.entries.get(tokenHash);
    if (!entry) return undefined;
    if (entry.until > Date.now()) return entry.ctx;
    this.entries.delete(tokenHash);
    return undefined;
  }

  /**
   * Whether a hit should also start the next lookup: past half the entry's life and
   * none under way. The entry is still served only until its end, as before.
   */
  due(tokenHash: string): boolean {
    const entry = this.entries.get(tokenHash);
    return Boolean(entry && entry.refreshAt <= Date.now() && !this.running.has(tokenHash));
  }

  /** Taken before a lookup and handed to `set`: a lookup that an invalidation overtook is not stored. */
  ticket(): number {
    return this.generation;
  }

  /**
   * Keeps `ctx` for the TTL or until the session ends (`expiresInMs`), whichever is
   * sooner. The context is frozen: every request of this session shares it.
   */
  set(tokenHash: string, ctx: AuthContext, expiresInMs: number, ticket: number): void {
    if (!this.live || ticket !== this.generation) return;
    const lifetime = Math.min(this.ttlMs, expiresInMs);
    if (!(lifetime > 0)) return;
    // Entries all live about as long, so the oldest inserted is about the least recently used.
    this.entries.delete(tokenHash);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    const now = Date.now();
    this.entries.set(tokenHash, { ctx: deepFreeze(ctx), until: now + lifetime, refreshAt: now + lifetime / 2 });
  }

  /**
   * One lookup for the callers of a session who miss together (its open pages polling
   * when the entry has lapsed; on the embedded database every lookup waits for the one
   * connection). A caller joins a lookup under way only if nothing was invalidated
   * since it started, so a logout or revoke still holds on the very next call.
   */
  lookup(tokenHash: string, read: (ticket: number) => Promise<AuthContext | null>): Promise<AuthContext | null> {
    const ticket = this.generation;
    const running = this.running.get(tokenHash);
    if (running && running.ticket === ticket) return running.lookup;
    const lookup: Promise<AuthContext | null> = read(ticket).finally(() => {
      if (this.running.get(tokenHash)?.lookup === lookup) this.running.delete(tokenHash);
    });
    this.running.set(tokenHash, { ticket, lookup });
    return lookup;
  }

  /** Drops one session's entry, or all of them. */
  invalidate(tokenHash?: string): void {
    this.generation += 1;
    if (tokenHash) this.entries.delete(tokenHash);
    else this.entries.clear();
  }

  setLive(live: boolean): void {
    this.live = live;
    this.invalidate();
  }

  /** Watches this instance's commits and the other instances' notifications (until db.close()). */
  async attach(db: Db): Promise<void> {
    db.observeCommits((statements) => {
      if (statements.some((sql) => AUTH_WRITE.test(sql))) this.invalidate();
    });
    await db.listen(AUTH_CHANNEL, {
      message: (payload) => this.invalidate(payload || undefined),
      connection: (up) => this.setLive(up),
    });
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const caches = new WeakMap<Db, SessionCache | null>();

/**
 * The cache of `db`'s sessions, made (and attached) on first use; undefined when
 * `ttlMs` is 0. One per Db: the apps of one process sharing a Db share it.
 */
export function sessionCacheOf(db: Db, ttlMs: number): SessionCache | undefined {
  let cache = caches.get(db);
  if (cache === undefined) {
    cache = ttlMs > 0 ? new SessionCache(ttlMs) : null;
    caches.set(db, cache);
    // Not live until attached, so nothing is cached before changes can be heard.
    const attaching = cache;
    attaching?.attach(db).catch(() => attaching.setLive(false));
  }
  return cache ?? undefined;
}

/** Exposed for tests: whether a string of SQL counts as a write to what auth_session reads. */
export const isAuthWrite = (sql: string): boolean => AUTH_WRITE.test(sql);
