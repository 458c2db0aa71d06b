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
  /** Size in bytes, or undefined when the key does not exist. */
  stat(key: string): Promise<number | undefined>;
  delete(key: string): Promise<void>;
  /**
   * A fresh local path for a caller that must write a file before it knows its key
   * (a DICOM instance arriving over the network): on the storage's own filesystem, so
   * putFile can move it in without copying.
   */
  tempPath(): string;
  /** Moves a file written at a tempPath() under `key`, durably (fsync of file and directory). */
  putFile(key: string, tempPath: string): Promise<StoredFile>;
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

/** Local directory storage: DATA_DIR/files. Writes go to a temp file, fsync, then rename. */
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
    fs.mkdirSync(this.incoming, { recursive: true });
    // Leftovers of a crash mid-write are incomplete by definition. Only old ones go:
    // another instance sharing this directory may be writing the recent ones.
    const stale = Date.now() - 3600_000;
    for (const name of fs.readdirSync(this.incoming)) {
      const file = path.join(this.incoming, name);
      if ((fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < stale) fs.rmSync(file, { force: true });
    }
  }

  tempPath(): string {
    return path.join(this.incoming, `${crypto.randomBytes(12).toString('hex')}.part`);
  }

  async putFile(key: string, tempPath: string): Promise<StoredFile> {
    if (path.dirname(path.resolve(tempPath)) !== this.incoming) throw new Error(`not a temp path of this storage: ${tempPath}`);
    const target = this.resolve(key);
    const dir = path.dirname(target);
    // A series' instances share a folder: created once, not asked for each instance.
    if (!this.knownDirs.has(dir)) {
      await fsp.mkdir(dir, { recursive: true });
      this.rememberDir(dir);
    }
    let size: number;
    const handle = await fsp.open(tempPath, 'r');
    try {
      if (this.sync) await handle.sync();
      size = (await handle.stat()).size;
    } finally {
      await handle.close();
    }
    await fsp.rename(tempPath, target);
    if (this.sync) await syncDir(dir);
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
    const full = this.resolve(key);
    await fsp.access(full);
    return fs.createReadStream(full, range);
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
