/**
 * File storage behind a small interface (uploads now, DICOM instances later), so an
 * object store can replace the local directory. Keys are relative paths such as
 * "uploads/2026/11/abc.png"; callers never see absolute paths.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';

export interface StoredFile {
  key: string;
  size: number;
}

export interface FileStorage {
  /** Writes the whole content durably (fsync) before resolving; replaces an existing key. */
  put(key: string, content: Buffer | Readable): Promise<StoredFile>;
  /**
   * The content, or with `range` only bytes start..end (inclusive, as fs streams
   * count): DICOMweb reads one frame of a large multi-frame file without the rest.
   */
  get(key: string, range?: { start: number; end?: number }): Promise<Readable>;
  /** The whole content in memory (a DICOM instance sent on, a part of a WADO-RS series): one read, not a stream's chunks. */
  read(key: string): Promise<Buffer>;
  /** Size in bytes, or undefined when the key does not exist. */
  stat(key: string): Promise<number | undefined>;
  delete(key: string): Promise<void>;
  /**
   * A fresh local path for a caller that must write a file before it knows its key
   * (a DICOM instance arriving over the network): on the storage's own filesystem, so
   * putFile can move it in without copying.
   */
  tempPath(): string;
  /** A new file at a tempPath(), written as its bytes arrive (the DICOM listener's C-STORE). */
  createTemp(): TempFile;
  /**
   * Moves a file written at a tempPath() under `key`, durably (fsync of file and
   * directory). With `exclusive`, a key that exists already is left as it is, the temp
   * file stays where it was and the result is undefined: the caller tells a duplicate
   * from a leftover of a crash.
   */
  putFile(key: string, tempPath: string, options?: PutFileOptions): Promise<StoredFile | undefined>;
}

export interface PutFileOptions {
  exclusive?: boolean;
  /** The file's size when the caller knows it (no stat). */
  size?: number;
  /** The caller has synced the file already (TempFile.finish). */
  synced?: boolean;
}

/**
 * A temp file written in arrival order: the first megabytes at once, the rest of a
 * large file queued and written in batches (one writev for what arrived meanwhile)
 * without blocking the caller. Queued buffers are written as they are, not copied:
 * the caller must not reuse them.
 */
export interface TempFile {
  /** Where the file is now: its temp path, or its key's path once placed. */
  readonly path: string;
  /** The key it was placed under (place()), if any. */
  readonly key: string | undefined;
  /** Bytes handed to write() so far. */
  readonly size: number;
  /** Queues bytes; false once more than the high-water mark waits for the disk (the caller should stop reading until drain()). */
  write(chunk: Buffer): boolean;
  /** Resolves once nothing waits for the disk (or writing failed). */
  drain(): Promise<void>;
  /**
   * Gives the file its key while it is still being written, so it needs no move when
   * whole (putFile): false when the key is taken (it stays a temp file). With sync,
   * the key's folder is synced meanwhile.
   */
  place(key: string): Promise<boolean>;
  /** Writes what is queued, syncs when the storage syncs, closes; rejects with the first write error. Resolves with the size. */
  finish(): Promise<{ size: number; synced: boolean }>;
  /** Drops the file (an unfinished transfer). */
  discard(): Promise<void>;
}

/** A rename must survive a crash too: sync the directory entry. */
async function syncDir(dir: string): Promise<void> {
  const handle = await fsp.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Largest chunk a stored file is read in. */
const READ_CHUNK = 1 << 20;
/** Bytes a TempFile may hold for the disk before write() asks its caller to wait. */
const TEMP_HIGH_WATER_MARK = 4 << 20;
/** Spare folders kept made (LocalFileStorage.makeDirs): a few studies' worth. */
const SPARE_DIRS = 4;
/** Buffers per writev (the system's IOV_MAX is 1024). */
const WRITEV_MAX = 512;

/**
 * Bytes a TempFile writes synchronously as they come (a CT or MR image, a radiograph):
 * a write into the page cache costs tens of microseconds, a round trip through libuv's
 * thread pool costs more than that in waiting, and a C-STORE's reply waits for its
 * last write. Past this size (a large multi-frame) writes are queued for the thread
 * pool, so the event loop never waits for the disk longer than this much writing.
 */
const SYNC_WRITE_LIMIT = 8 << 20;

const writevAsync = promisify(fs.writev);
const fsyncAsync = promisify(fs.fsync);

/**
 * The open, name-taking and close of a temp file are synchronous too (metadata calls of
 * a few microseconds that each cost a thread pool round trip otherwise); an fsync
 * (FILE_SYNC) is not.
 */
class LocalTempFile implements TempFile {
  size = 0;
  key: string | undefined;
  private fd: number | undefined;
  /** The syncs of folders created for a placed file (sync on). */
  private placedDirsSynced: Promise<void> | undefined;
  /** Past SYNC_WRITE_LIMIT: bytes wait in `queue` for a writev on the thread pool. */
  private queueing = false;
  private queue: Buffer[] = [];
  private queued = 0;
  private flushing: Promise<void> | undefined;
  private failure: Error | undefined;
  private closed = false;

  /** `fd`: the file at `path` opened already (a spare, see LocalFileStorage.createTemp). */
  constructor(
    public path: string,
    private readonly storage: LocalFileStorage,
    private readonly sync: boolean,
    fd?: number,
  ) {
    try {
      this.fd = fd ?? fs.openSync(path, 'wx');
    } catch (e) {
      // Reported by finish().
      this.failure = e as Error;
    }
  }

  write(chunk: Buffer): boolean {
    if (this.closed) throw new Error('temp file already finished');
    this.size += chunk.length;
    if (this.failure) return true;
    if (!this.queueing && this.size <= SYNC_WRITE_LIMIT) {
      try {
        for (let at = 0; at < chunk.length; ) at += fs.writeSync(this.fd!, chunk, at, chunk.length - at);
      } catch (e) {
        this.failure = e as Error;
      }
      return true;
    }
    this.queueing = true;
    this.queue.push(chunk);
    this.queued += chunk.length;
    this.flushing ??= this.flush();
    return this.queued < TEMP_HIGH_WATER_MARK;
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length && !this.failure) {
        const batch = this.queue.splice(0, WRITEV_MAX);
        const bytes = batch.reduce((n, b) => n + b.length, 0);
        let rest = batch;
        // writev may write less than asked (a signal, a full disk): the rest goes again.
        for (let left = bytes; left > 0; ) {
          const { bytesWritten } = await writevAsync(this.fd!, rest);
          if (bytesWritten <= 0) throw new Error('write made no progress');
          left -= bytesWritten;
          rest = skipBytes(rest, bytesWritten);
        }
        this.queued -= bytes;
      }
    } catch (e) {
      this.failure ??= e as Error;
    } finally {
      if (this.failure) {
        this.queue = [];
        this.queued = 0;
      }
      this.flushing = undefined;
    }
  }

  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  async place(key: string): Promise<boolean> {
    if (this.key !== undefined || this.closed) throw new Error('temp file placed or finished already');
    if (this.failure) return false;
    // The name is given while the open file is written on: writes go by descriptor.
    const linked = this.storage.linkNew(this.path, key);
    if (!linked) return false;
    const temp = this.path;
    this.path = linked.target;
    this.key = key;
    if (this.sync) {
      this.placedDirsSynced = linked.dirsSynced;
      this.placedDirsSynced.catch((e: Error) => (this.failure ??= e));
    }
    fs.unlinkSync(temp);
    return true;
  }

  private closeFd(): void {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) fs.closeSync(fd);
  }

  async finish(): Promise<{ size: number; synced: boolean }> {
    this.closed = true;
    await this.drain();
    try {
      if (this.failure) throw this.failure;
      if (this.sync) {
        // The file first, then its folder: on a journaling file system the file's sync
        // commits the new name too, and the folder's finds nothing left to write. The
        // other way round (the folder synced as the name is given) costs two commits.
        await fsyncAsync(this.fd!);
        await Promise.all([this.placedDirsSynced, this.key !== undefined && syncDir(path.dirname(this.path))]);
      }
      if (this.failure) throw this.failure;
    } finally {
      try {
        this.closeFd();
      } catch {
        /* the file's fate is decided above */
      }
    }
    return { size: this.size, synced: this.sync };
  }

  async discard(): Promise<void> {
    this.closed = true;
    this.failure ??= new Error('discarded');
    await this.drain();
    try {
      this.closeFd();
    } catch {
      /* removed below all the same */
    }
    await fsp.rm(this.path, { force: true });
  }
}

/** The buffers left after the first `n` bytes. */
function skipBytes(buffers: Buffer[], n: number): Buffer[] {
  let i = 0;
  while (i < buffers.length && n >= buffers[i].length) n -= buffers[i++].length;
  const rest = buffers.slice(i);
  if (n > 0) rest[0] = rest[0].subarray(n);
  return rest;
}

/**
 * Local directory storage: DATA_DIR/files. Writes go to a temp file in .incoming, fsync,
 * then take their name (rename, or link where an existing name must be kept). A
 * received DICOM file may take its name while still being written (TempFile.place): a
 * crash then leaves a partial file under a key no index row points to, which the
 * instance's next arrival replaces.
 */
export class LocalFileStorage implements FileStorage {
  private readonly incoming: string;

  /**
   * `sync`: fsync each file and its folder before a write resolves, so an acknowledged
   * file survives a power cut or a kernel crash. Without it, files survive the process
   * dying (kill -9, a crash of the server) but not the machine (FILE_SYNC=off).
   */
  constructor(
    private readonly root: string,
    private readonly sync = true,
  ) {
    fs.mkdirSync(root, { recursive: true });
    this.incoming = path.join(root, '.incoming');
    this.spares = path.join(root, '.spare');
    // Leftovers of a crash mid-write are incomplete by definition, and a spare is empty.
    // Only old ones go: another instance sharing this directory may be using the recent ones.
    const stale = Date.now() - 3600_000;
    for (const dir of [this.incoming, this.spares]) {
      fs.mkdirSync(dir, { recursive: true });
      for (const name of fs.readdirSync(dir)) {
        const file = path.join(dir, name);
        if ((fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < stale) fs.rmSync(file, { recursive: true, force: true });
      }
    }
  }

  /** Temp names: random per process (others may share the folder), counted within it. */
  private readonly tempPrefix = `${process.pid}-${crypto.randomBytes(6).toString('hex')}`;
  private tempCount = 0;

  tempPath(): string {
    return path.join(this.incoming, `${this.tempPrefix}-${++this.tempCount}.part`);
  }

  /**
   * An empty file made ahead for the next createTemp, in a folder of its own (.incoming
   * holds transfers only). Making a file is the dearest call on a small C-STORE's path:
   * an inode allocated, 0.1 to 0.5 ms of kernel time on the disks measured, more than
   * reading the header. The spare is made on the thread pool while the listener waits
   * for the database, and a transfer only renames it (tens of microseconds).
   */
  private readonly spares: string;
  private spare: { path: string; fd: number } | undefined;
  private sparing = false;

  createTemp(): TempFile {
    const target = this.tempPath();
    const fd = this.takeSpare(target);
    this.makeSpare();
    return new LocalTempFile(target, this, this.sync, fd);
  }

  /** The spare's descriptor, its file moved to `target`; undefined when there is none ready. */
  private takeSpare(target: string): number | undefined {
    const spare = this.spare;
    if (!spare) return undefined;
    this.spare = undefined;
    try {
      fs.renameSync(spare.path, target);
      return spare.fd;
    } catch {
      // Gone (swept as old by another instance's start): the temp file is made afresh.
      fs.close(spare.fd, () => undefined);
      return undefined;
    }
  }

  private makeSpare(): void {
    if (this.spare || this.sparing) return;
    this.sparing = true;
    const file = path.join(this.spares, `${this.tempPrefix}-${++this.tempCount}.part`);
    this.track((done) =>
      fs.open(file, 'wx', (e, fd) => {
        this.sparing = false;
        // A spare that could not be made is not missed: createTemp makes its file itself.
        if (!e) this.spare = { path: file, fd };
        done();
      }),
    );
  }

  /** Spares being made on the thread pool. */
  private readonly making = new Set<Promise<void>>();

  private track(start: (done: () => void) => void): void {
    const made = new Promise<void>((resolve) => start(resolve));
    this.making.add(made);
    void made.then(() => this.making.delete(made));
  }

  /** Resolves once the spares being made are made (or failed to be). */
  async spared(): Promise<void> {
    await Promise.all(this.making);
  }

  /**
   * A second name for a file, under `key`: link() refuses an existing name where
   * rename() would replace it. Undefined when the key is taken; otherwise the absolute
   * path, and (with sync) the syncs of the folders it had to create, to be awaited
   * before the file counts as stored. The calls are synchronous: metadata calls of a
   * few microseconds, each of which would cost a thread-pool round trip on the path
   * of a C-STORE reply.
   */
  linkNew(from: string, key: string): { target: string; dirsSynced: Promise<void> } | undefined {
    return this.withDir(key, (target) => {
      try {
        fs.linkSync(from, target);
        return target;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
        throw e;
      }
    });
  }

  /**
   * Runs `make` (a link or rename to the key's path) in the key's folder, creating the
   * folder when it is missing (first instance of a series; or deleted meanwhile).
   * `make` returns undefined when the key is taken.
   */
  private withDir<T>(key: string, make: (target: string) => T): { target: string; dirsSynced: Promise<void> } | undefined {
    const target = this.resolve(key);
    const dir = path.dirname(target);
    if (this.knownDirs.has(dir)) {
      try {
        return make(target) === undefined ? undefined : { target, dirsSynced: Promise.resolve() };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
    const dirsSynced = this.madeDir(dir, this.makeDirs(dir));
    this.makeSpareDirs();
    // Not left unhandled while `make` runs; the caller awaits it.
    dirsSynced.catch(() => undefined);
    return make(target) === undefined ? undefined : { target, dirsSynced };
  }

  /**
   * Empty folders made ahead in .spare, as the spare file is: a new study's first file
   * needs two new folders (the study's and its series'), and making a folder costs as
   * much as making a file. makeDirs renames spares into place instead (a rename
   * allocates no inode), and more are made on the thread pool.
   */
  private readonly spareDirs: string[] = [];
  private makingDirs = 0;

  private makeSpareDirs(): void {
    while (this.spareDirs.length + this.makingDirs < SPARE_DIRS) {
      this.makingDirs++;
      const dir = path.join(this.spares, `${this.tempPrefix}-${++this.tempCount}.dir`);
      this.track((done) =>
        fs.mkdir(dir, (e) => {
          this.makingDirs--;
          if (!e) this.spareDirs.push(dir);
          done();
        }),
      );
    }
  }

  /**
   * mkdir -p, each missing folder a spare renamed into place while there are spares.
   * Returns the first folder it made, if any, as mkdirSync's recursive form does. A
   * rename onto an existing empty folder replaces it, which loses nothing; onto one
   * with entries it fails, and the folder is there.
   */
  private makeDirs(dir: string): string | undefined {
    const spare = this.spareDirs.pop();
    if (!spare) return fs.mkdirSync(dir, { recursive: true });
    try {
      fs.renameSync(spare, dir);
      return dir;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST') {
        this.spareDirs.push(spare);
        return undefined;
      }
      // The parent is missing (the spare is there): made first, then this folder.
      if (code === 'ENOENT' && fs.existsSync(spare)) {
        this.spareDirs.push(spare);
        const parent = this.makeDirs(path.dirname(dir));
        const made = this.makeDirs(dir);
        return parent ?? made;
      }
      // Swept meanwhile, or anything else: mkdir decides.
      return fs.mkdirSync(dir, { recursive: true });
    }
  }

  /**
   * Remembers a folder mkdir made sure of; `created` is the first one it created, if
   * any. With sync, each created folder's entry in its parent is synced: a file
   * synced in a folder whose own entry is lost is lost too.
   */
  private async madeDir(dir: string, created: string | undefined): Promise<void> {
    this.rememberDir(dir);
    if (!this.sync || !created) return;
    const parents: string[] = [];
    for (let d = dir; d.length >= created.length; d = path.dirname(d)) parents.push(path.dirname(d));
    await Promise.all(parents.map((d) => syncDir(d)));
  }

  async putFile(key: string, tempPath: string, options: PutFileOptions = {}): Promise<StoredFile | undefined> {
    if (path.dirname(path.resolve(tempPath)) !== this.incoming) throw new Error(`not a temp path of this storage: ${tempPath}`);
    let size = options.size;
    if (size === undefined || (this.sync && !options.synced)) {
      const handle = await fsp.open(tempPath, 'r');
      try {
        if (this.sync && !options.synced) await handle.sync();
        size ??= (await handle.stat()).size;
      } finally {
        await handle.close();
      }
    }
    const placed = options.exclusive ? this.linkNew(tempPath, key) : this.withDir(key, (to) => {
          fs.renameSync(tempPath, to);
          return to;
        });
    if (!placed) return undefined;
    if (options.exclusive) fs.unlinkSync(tempPath);
    if (this.sync) await Promise.all([placed.dirsSynced, syncDir(path.dirname(placed.target))]);
    return { key, size };
  }

  /** Folders known to exist (bounded: a long-running archive sees many studies). */
  private readonly knownDirs = new Set<string>();

  private rememberDir(dir: string): void {
    if (this.knownDirs.size >= 10_000) this.knownDirs.clear();
    this.knownDirs.add(dir);
  }

  private resolve(key: string): string {
    const full = path.resolve(this.root, key);
    if (!full.startsWith(this.root + path.sep)) throw new Error(`storage key escapes the root: ${key}`);
    return full;
  }

  async put(key: string, content: Buffer | Readable): Promise<StoredFile> {
    const target = this.resolve(key);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    const tmp = `${target}.${crypto.randomBytes(6).toString('hex')}.tmp`;
    try {
      const handle = await fsp.open(tmp, 'w');
      try {
        if (Buffer.isBuffer(content)) await handle.writeFile(content);
        else for await (const chunk of content) await handle.write(chunk as Buffer);
        if (this.sync) await handle.sync();
      } finally {
        await handle.close();
      }
      await fsp.rename(tmp, target);
      if (this.sync) await syncDir(path.dirname(target));
    } catch (e) {
      await fsp.rm(tmp, { force: true });
      throw e;
    }
    const { size } = await fsp.stat(target);
    return { key, size };
  }

  async get(key: string, range?: { start: number; end?: number }): Promise<Readable> {
    // Opened here, so a missing key rejects before streaming starts (one system call, not
    // a check and then an open). Read in large chunks: a WADO-RS series is hundreds of
    // files streamed whole, and every chunk costs a turn of the event loop.
    const handle = await fsp.open(this.resolve(key), 'r');
    const length = range ? (range.end ?? Infinity) - range.start + 1 : Infinity;
    return handle.createReadStream({ ...range, highWaterMark: Math.max(64 * 1024, Math.min(READ_CHUNK, length)) });
  }

  read(key: string): Promise<Buffer> {
    return fsp.readFile(this.resolve(key));
  }

  async stat(key: string): Promise<number | undefined> {
    try {
      return (await fsp.stat(this.resolve(key))).size;
    } catch {
      return undefined;
    }
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.resolve(key), { force: true });
  }
}
