/**
 * Spec section 2: "A failed chunk load retries the same route." After a deploy the
 * old hashed chunks are gone; reloading the route fetches the new index. The guard in
 * sessionStorage makes it once per route per window of time, so a chunk that is truly
 * missing shows the error instead of reloading forever.
 */
export const CHUNK_RELOAD_KEY = 'rcloud-chunk-reload';
export const CHUNK_RELOAD_WINDOW_MS = 30_000;

const CHUNK_ERROR_PATTERNS = [
  /ChunkLoadError/i,
  /Loading (CSS )?chunk [\w-]+ failed/i,
  /Loading chunk/i,
  /Failed to fetch dynamically imported module/i,
  /error loading dynamically imported module/i,
  /Importing a module script failed/i,
];

export function isChunkLoadError(error: unknown): boolean {
  const e = error as { name?: unknown; message?: unknown } | null | undefined;
  const text = `${typeof e?.name === 'string' ? e.name : ''} ${typeof e?.message === 'string' ? e.message : String(error)}`;
  return CHUNK_ERROR_PATTERNS.some((re) => re.test(text));
}

type SessionStore = Pick<Storage, 'getItem' | 'setItem'>;

/** True (and remembers it) when this route has not been reloaded for a chunk error lately. */
export function claimChunkReload(storage: SessionStore, path: string, now: number = Date.now()): boolean {
  let last: { path?: string; at?: number } = {};
  try {
    last = JSON.parse(storage.getItem(CHUNK_RELOAD_KEY) ?? '{}') ?? {};
  } catch {
    last = {};
  }
  if (last.path === path && typeof last.at === 'number' && now - last.at < CHUNK_RELOAD_WINDOW_MS) return false;
  storage.setItem(CHUNK_RELOAD_KEY, JSON.stringify({ path, at: now }));
  return true;
}
