/**
 * The file service's rules (routes/file.ts only translates HTTP): upload policy, the
 * one-request upload of a small file, the resumable chunked upload of a large one
 * (init → chunk n → complete, with the chunks that arrived asked for after a broken
 * connection), download and delete, each scoped like the file's owner
 * (./purposes.ts). Every step is a database row or a stored object, never memory, so
 * any instance serves any step. A file's type is sniffed from its bytes (./sniff.ts);
 * its size, type and pixels are judged before it is kept, and a refused one leaves
 * nothing behind. Reads and writes stored_file and stored_file_chunk, the storage
 * under `uploads/` (chunks) and `files/` (kept files), and what a purpose attaches.
 */
import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Db, Queryable } from '../db';
import { hasPermission } from '../identity/access';
import type { AuthContext } from '../identity/sessions';
import { AppError } from '../lib/errors';
import { readImageInfo } from '../lib/images';
import type { FileStorage } from '../storage';
import { CHUNK_SIZE, OWNER_KINDS, PURPOSES, type KeptFile, type Purpose } from './purposes';
import { SNIFF_BYTES, sniffType, type SniffedType } from './sniff';

// The file service's answers as this module builds them; the client reads them typed from the routes' schemas (src/services/generated/file.ts).

/** A file service purpose's policy (GET /api/file/v1/policy): what an upload may be. */
export interface FilePolicy {
  purpose: string;
  ownerKind: string;
  types: string[];
  maxBytes: number;
  chunkSize: number;
  pixels?: { width: number; height: number };
}

/** A kept file as the file service describes it. */
export interface FileMeta {
  id: string;
  purpose: string;
  ownerKind: string;
  ownerId: number;
  name: string;
  type: string;
  size: number;
  sha256: string;
  createdAt: string;
}

/** Where an upload goes: its purpose, the owning record and the file's name. */
export interface UploadTarget {
  purpose: string;
  ownerId: number;
  name: string;
}

/** A chunked upload's state (which chunks arrived), so a broken upload resumes. */
export interface UploadStatus {
  id: string;
  chunkSize: number;
  chunkCount: number;
  /** Chunk numbers that arrived, ascending. */
  received: number[];
  complete: boolean;
}

interface FileRow {
  id: string;
  purpose: string;
  owner_kind: string;
  owner_id: number;
  hospital_id: number | null;
  name: string;
  type: string | null;
  size: string | number;
  sha256: string | null;
  storage_key: string | null;
  chunk_size: number;
  chunk_count: number;
  complete: boolean;
  created_by: number | null;
  created_at: Date;
}

export function purposeOf(name: string): Purpose {
  const p = PURPOSES[name];
  if (!p) throw new AppError('UAA421', { detailKey: 'validation.enum', field: 'purpose' }, { field: 'purpose' });
  return p;
}

export function policyOf(name: string): FilePolicy {
  const p = purposeOf(name);
  return { purpose: name, ownerKind: p.owner, types: p.types, maxBytes: p.maxBytes, chunkSize: CHUNK_SIZE, ...(p.pixels ? { pixels: p.pixels } : {}) };
}

/**
 * The owner as the caller may act on it: the right for the kind (UAA103), the owner
 * within the caller's scope (FILE002), and for writing the kind's own rule.
 */
async function reachOwner(q: Queryable, me: AuthContext, ownerKind: string, ownerId: number, write: boolean): Promise<{ hospitalId: number | null }> {
  const kind = OWNER_KINDS[ownerKind];
  if (!kind) throw new AppError('FILE001');
  if (!(write ? kind.write : kind.read).some((key) => hasPermission(me.permissions, key))) throw new AppError('UAA103');
  const owner = await kind.find(q, ownerId, me);
  if (!owner) throw new AppError('FILE002');
  if (write && kind.assertWrite) await kind.assertWrite(q, ownerId, me);
  return owner;
}

function meta(r: FileRow): FileMeta {
  return {
    id: r.id,
    purpose: r.purpose,
    ownerKind: r.owner_kind,
    ownerId: r.owner_id,
    name: r.name,
    type: r.type ?? '',
    size: Number(r.size),
    sha256: r.sha256 ?? '',
    createdAt: r.created_at.toISOString(),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function fileRow(q: Queryable, id: string, lock = false): Promise<FileRow | undefined> {
  if (!UUID.test(id)) return undefined;
  const { rows } = await q.query<FileRow>(`SELECT * FROM stored_file WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0];
}

/** An unfinished upload of this caller (anyone else's, or a finished one, is unknown: FILE001). */
async function pendingUpload(q: Queryable, me: AuthContext, id: string): Promise<FileRow> {
  const row = await fileRow(q, id);
  if (!row || row.complete || row.created_by !== me.userId) throw new AppError('FILE001');
  return row;
}

/** A complete file the caller may read (or write): FILE001 unknown, FILE002 owner out of scope. */
async function reachableFile(q: Queryable, me: AuthContext, id: string, write: boolean): Promise<FileRow> {
  const row = await fileRow(q, id);
  if (!row || !row.complete) throw new AppError('FILE001');
  await reachOwner(q, me, row.owner_kind, row.owner_id, write);
  return row;
}

function tooLarge(p: Purpose): AppError {
  return new AppError('UCENTER704', { limit: p.maxBytes });
}

/** The type the first bytes say, when the purpose accepts it (UCENTER703 otherwise). */
function acceptedType(p: Purpose, head: Uint8Array): SniffedType {
  const type = sniffType(head);
  if (!type || !p.types.includes(type.mime)) throw new AppError('UCENTER703');
  return type;
}

function assertPixels(p: Purpose, whole: Buffer): void {
  if (!p.pixels) return;
  const info = readImageInfo(whole);
  if (!info) throw new AppError('UCENTER703');
  if (info.width !== p.pixels.width || info.height !== p.pixels.height) {
    const limit = `${p.pixels.width}x${p.pixels.height}`;
    throw new AppError('UAA421', { detailKey: 'validation.imageSize', field: 'file', limit }, { field: 'file' });
  }
}

function storageKeyOf(id: string, type: SniffedType, at = new Date()): string {
  return `files/${at.getUTCFullYear()}/${String(at.getUTCMonth() + 1).padStart(2, '0')}/${id}.${type.ext}`;
}

const chunkKey = (id: string, n: number) => `uploads/${id}/${n}`;

/** Starts an upload: the row exists from now on, incomplete, owned by the caller. */
async function createUpload(q: Queryable, me: AuthContext, target: UploadTarget, size: number): Promise<FileRow> {
  const p = purposeOf(target.purpose);
  const owner = await reachOwner(q, me, p.owner, target.ownerId, true);
  if (size > p.maxBytes) throw tooLarge(p);
  const { rows } = await q.query<FileRow>(
    `INSERT INTO stored_file (id, purpose, owner_kind, owner_id, hospital_id, name, size, chunk_size, chunk_count, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
    [crypto.randomUUID(), target.purpose, p.owner, target.ownerId, owner.hospitalId, target.name, size, CHUNK_SIZE, Math.max(1, Math.ceil(size / CHUNK_SIZE)), me.userId],
  );
  return rows[0];
}

/**
 * Marks the upload kept under `key` (written already), attaches it to its owner and,
 * for a purpose with a per-owner limit, drops the owner's oldest files beyond it;
 * one transaction. Answers the storage keys no longer needed (replaced files).
 */
async function keep(db: Db, me: AuthContext, row: FileRow, type: SniffedType, sha256: string, size: number, key: string): Promise<{ meta: FileMeta; obsolete: string[] }> {
  const p = purposeOf(row.purpose);
  return db.tx(async (q) => {
    // The owner may have left the caller's reach while the chunks came.
    await reachOwner(q, me, row.owner_kind, row.owner_id, true);
    const done = await q.query<FileRow>(
      `UPDATE stored_file SET complete = true, type = $2, sha256 = $3, size = $4, storage_key = $5, completed_at = now()
        WHERE id = $1 AND NOT complete RETURNING *`,
      [row.id, type.mime, sha256, size, key],
    );
    // Completed meanwhile by a second call: that one kept it.
    if (!done.rows[0]) throw new AppError('FILE001');
    await q.query('DELETE FROM stored_file_chunk WHERE file_id = $1', [row.id]);
    const kept: KeptFile = { id: row.id, ownerId: row.owner_id, storageKey: key };
    const obsolete: string[] = [];
    if (p.perOwner) {
      const old = await q.query<{ id: string; storage_key: string }>(
        `DELETE FROM stored_file WHERE id IN (
           SELECT id FROM stored_file WHERE owner_kind = $1 AND owner_id = $2 AND purpose = $3 AND complete AND id <> $4
            ORDER BY completed_at DESC OFFSET $5)
         RETURNING id, storage_key`,
        [row.owner_kind, row.owner_id, row.purpose, row.id, p.perOwner - 1],
      );
      obsolete.push(...old.rows.map((r) => r.storage_key));
    }
    if (p.attach) await p.attach(q, kept);
    return { meta: meta(done.rows[0]), obsolete };
  });
}

async function dropKeys(storage: FileStorage, keys: string[]): Promise<void> {
  // A leftover object is harmless (no row names it); the answer does not wait on it failing.
  await Promise.all(keys.map((k) => storage.delete(k).catch(() => undefined)));
}

/** A small file (at most one chunk) in one request. */
export async function uploadSmall(db: Db, storage: FileStorage, me: AuthContext, target: UploadTarget, content: Buffer): Promise<FileMeta> {
  const p = purposeOf(target.purpose);
  if (content.length > p.maxBytes) throw tooLarge(p);
  if (content.length > CHUNK_SIZE) throw new AppError('FILE003', { limit: CHUNK_SIZE });
  if (!content.length) throw new AppError('UCENTER703');
  const type = acceptedType(p, content.subarray(0, SNIFF_BYTES));
  assertPixels(p, content);
  // Judged before anything is written: a refusal leaves no row and no object.
  const row = await createUpload(db, me, target, content.length);
  const key = storageKeyOf(row.id, type);
  await storage.put(key, content);
  try {
    const sha256 = crypto.createHash('sha256').update(content).digest('hex');
    const { meta: kept, obsolete } = await keep(db, me, row, type, sha256, content.length, key);
    await dropKeys(storage, obsolete);
    return kept;
  } catch (e) {
    await db.query('DELETE FROM stored_file WHERE id = $1', [row.id]);
    await dropKeys(storage, [key]);
    throw e;
  }
}

export async function initUpload(db: Db, me: AuthContext, target: UploadTarget & { size: number }): Promise<UploadStatus> {
  const row = await createUpload(db, me, target, target.size);
  return { id: row.id, chunkSize: row.chunk_size, chunkCount: row.chunk_count, received: [], complete: false };
}

export async function uploadStatus(db: Queryable, me: AuthContext, id: string): Promise<UploadStatus> {
  const row = await fileRow(db, id);
  if (!row || row.created_by !== me.userId) throw new AppError('FILE001');
  const { rows } = await db.query<{ n: number }>('SELECT n FROM stored_file_chunk WHERE file_id = $1 ORDER BY n', [id]);
  return { id, chunkSize: row.chunk_size, chunkCount: row.chunk_count, received: rows.map((r) => r.n), complete: row.complete };
}

/** Chunk n of an upload: every chunk is chunkSize bytes but the last, which is the rest. Sent again, it replaces the first. */
export async function putChunk(db: Db, storage: FileStorage, me: AuthContext, id: string, n: number, content: Buffer): Promise<UploadStatus> {
  const row = await pendingUpload(db, me, id);
  const size = Number(row.size);
  const expected = n === row.chunk_count - 1 ? size - n * row.chunk_size : row.chunk_size;
  if (n < 0 || n >= row.chunk_count || content.length !== expected) throw new AppError('FILE003', { limit: row.chunk_size });
  // The first chunk tells the type: a refused one stops here, not after 50 MB.
  if (n === 0) acceptedType(purposeOf(row.purpose), content.subarray(0, SNIFF_BYTES));
  const key = chunkKey(id, n);
  await storage.put(key, content);
  await db.query(
    `INSERT INTO stored_file_chunk (file_id, n, size, storage_key) VALUES ($1, $2, $3, $4)
     ON CONFLICT (file_id, n) DO UPDATE SET size = EXCLUDED.size, storage_key = EXCLUDED.storage_key, received_at = now()`,
    [id, n, content.length, key],
  );
  return uploadStatus(db, me, id);
}

/**
 * Joins the chunks in order into the kept file, hashing on the way, and keeps it.
 * Missing chunks: FILE004 naming them. A refused file (type, pixels) is deleted with
 * its chunks.
 */
export async function completeUpload(db: Db, storage: FileStorage, me: AuthContext, id: string): Promise<FileMeta> {
  const row = await pendingUpload(db, me, id);
  const p = purposeOf(row.purpose);
  const { rows: chunks } = await db.query<{ n: number; size: number; storage_key: string }>('SELECT n, size, storage_key FROM stored_file_chunk WHERE file_id = $1 ORDER BY n', [id]);
  const have = new Set(chunks.map((c) => c.n));
  const missing = Array.from({ length: row.chunk_count }, (_, n) => n).filter((n) => !have.has(n));
  if (missing.length) throw new AppError('FILE004', { count: missing.length }, { missing });
  const discard = async () => {
    await db.query('DELETE FROM stored_file WHERE id = $1', [id]);
    await dropKeys(storage, chunks.map((c) => c.storage_key));
  };

  const temp = storage.createTemp();
  const hash = crypto.createHash('sha256');
  // Pictures are judged whole (their pixel size may sit after the first chunk); their limit is small.
  const whole: Buffer[] | undefined = p.pixels ? [] : undefined;
  let head: Buffer | undefined;
  let type: SniffedType;
  let synced = false;
  try {
    for (const c of chunks) {
      for await (const buf of await storage.get(c.storage_key)) {
        head ??= (buf as Buffer).subarray(0, SNIFF_BYTES);
        hash.update(buf as Buffer);
        whole?.push(buf as Buffer);
        if (!temp.write(buf as Buffer)) await temp.drain();
      }
    }
    const finished = await temp.finish();
    const size = finished.size;
    synced = finished.synced;
    if (size !== Number(row.size)) throw new AppError('FILE003', { limit: row.chunk_size });
    if (size > p.maxBytes) throw tooLarge(p);
    type = acceptedType(p, head ?? Buffer.alloc(0));
    if (whole) assertPixels(p, Buffer.concat(whole));
  } catch (e) {
    await temp.discard().catch(() => undefined);
    if (e instanceof AppError) await discard();
    throw e;
  }
  const key = storageKeyOf(id, type);
  await storage.putFile(key, temp.path, { synced });
  try {
    const { meta: kept, obsolete } = await keep(db, me, row, type, hash.digest('hex'), Number(row.size), key);
    await dropKeys(storage, [...chunks.map((c) => c.storage_key), ...obsolete]);
    return kept;
  } catch (e) {
    await dropKeys(storage, [key]);
    throw e;
  }
}

export async function fileMeta(db: Queryable, me: AuthContext, id: string): Promise<FileMeta> {
  return meta(await reachableFile(db, me, id, false));
}

export async function openFile(db: Queryable, storage: FileStorage, me: AuthContext, id: string): Promise<{ meta: FileMeta; content: Readable }> {
  const row = await reachableFile(db, me, id, false);
  return { meta: meta(row), content: await storage.get(row.storage_key!) };
}

/**
 * A kept file's content for a caller another domain has already authorized for it
 * (a consultation's material, read by its invited experts outside the exam's scope).
 */
export async function openKeptFile(db: Queryable, storage: FileStorage, id: string): Promise<{ meta: FileMeta; content: Readable }> {
  const row = await fileRow(db, id);
  if (!row?.complete || !row.storage_key) throw new AppError('FILE001');
  return { meta: meta(row), content: await storage.get(row.storage_key) };
}

/** Deletes a kept file (what its purpose attached goes with it) or drops an unfinished upload of the caller's. */
export async function deleteFile(db: Db, storage: FileStorage, me: AuthContext, id: string): Promise<void> {
  const found = await fileRow(db, id);
  if (found && !found.complete) {
    const row = await pendingUpload(db, me, id);
    const { rows } = await db.query<{ storage_key: string }>('SELECT storage_key FROM stored_file_chunk WHERE file_id = $1', [row.id]);
    await db.query('DELETE FROM stored_file WHERE id = $1', [row.id]);
    await dropKeys(storage, rows.map((r) => r.storage_key));
    return;
  }
  const row = await reachableFile(db, me, id, true);
  const p = purposeOf(row.purpose);
  await db.tx(async (q) => {
    const gone = await q.query('DELETE FROM stored_file WHERE id = $1 AND complete', [row.id]);
    if (!gone.rowCount) throw new AppError('FILE001');
    if (p.detach) await p.detach(q, { id: row.id, ownerId: row.owner_id, storageKey: row.storage_key! });
  });
  await dropKeys(storage, [row.storage_key!]);
}
