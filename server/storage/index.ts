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
  get(key: string): Promise<Readable>;
  /** Size in bytes, or undefined when the key does not exist. */
  stat(key: string): Promise<number | undefined>;
  delete(key: string): Promise<void>;
}

/** Local directory storage: DATA_DIR/files. Writes go to a temp file, fsync, then rename. */
export class LocalFileStorage implements FileStorage {
  constructor(private readonly root: string) {
    fs.mkdirSync(root, { recursive: true });
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
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fsp.rename(tmp, target);
      // The rename itself must survive a crash: sync the directory entry too.
      const dir = await fsp.open(path.dirname(target), 'r');
      try {
        await dir.sync();
      } finally {
        await dir.close();
      }
    } catch (e) {
      await fsp.rm(tmp, { force: true });
      throw e;
    }
    const { size } = await fsp.stat(target);
    return { key, size };
  }

  async get(key: string): Promise<Readable> {
    const full = this.resolve(key);
    await fsp.access(full);
    return fs.createReadStream(full);
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
