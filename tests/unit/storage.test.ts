/**
 * Local file storage: put (buffer and stream) then get returns the same bytes,
 * stat and delete work, a replaced key holds the new content, no temp files are
 * left behind, and a key cannot escape the storage root.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { LocalFileStorage } from '../../server/storage';

async function read(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe('LocalFileStorage', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-storage-'));
  const storage = new LocalFileStorage(root);
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  test('stores buffers and streams and reads them back', async () => {
    const bytes = Buffer.from('DICM'.repeat(1000));
    expect(await storage.put('a/b/one.bin', bytes)).toEqual({ key: 'a/b/one.bin', size: bytes.length });
    expect(await read(await storage.get('a/b/one.bin'))).toEqual(bytes);
    await storage.put('a/two.bin', Readable.from([Buffer.from('x'), Buffer.from('yz')]));
    expect((await read(await storage.get('a/two.bin'))).toString()).toBe('xyz');
    await storage.put('a/two.bin', Buffer.from('new'));
    expect((await read(await storage.get('a/two.bin'))).toString()).toBe('new');
    expect(await storage.stat('a/two.bin')).toBe(3);
    expect(fs.readdirSync(path.join(root, 'a')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  test('delete removes, stat of a missing key is undefined, get of it rejects', async () => {
    await storage.put('gone.bin', Buffer.from('1'));
    await storage.delete('gone.bin');
    expect(await storage.stat('gone.bin')).toBeUndefined();
    await expect(storage.get('gone.bin')).rejects.toThrow();
  });

  test('a key cannot escape the root', async () => {
    await expect(storage.put('../outside.bin', Buffer.from('x'))).rejects.toThrow(/escapes/);
  });
});
