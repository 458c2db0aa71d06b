/**
 * Local file storage: put (buffer and stream) then get returns the same bytes,
 * stat and delete work, a replaced key holds the new content, no temp files are
 * left behind, and a key cannot escape the storage root. Temp files for transfers
 * (createTemp) come from a spare made ahead in .spare: each transfer gets a file of its
 * own in .incoming with exactly its bytes, at most one spare waits, and a spare swept
 * away by another instance's start is replaced without failing a transfer. New folders
 * (a new study's and its series') are spare folders renamed into place; a folder that
 * has files keeps them, and swept spare folders leave mkdir to make them.
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

  test('transfers take spare temp files made ahead; each is its own file; a swept spare is made afresh', async () => {
    const spares = () => fs.readdirSync(path.join(root, '.spare')).filter((n) => n.endsWith('.part'));
    /** Once the spare being made on the thread pool is made: `n` of them there. */
    const spareReady = async (n = 1) => {
      await storage.spared();
      expect(spares()).toHaveLength(n);
    };
    const transfer = async (text: string, key: string) => {
      const temp = storage.createTemp();
      expect(path.dirname(temp.path)).toBe(path.join(root, '.incoming'));
      temp.write(Buffer.from(text));
      expect(await temp.place(key)).toBe(true);
      expect(await temp.finish()).toEqual({ size: text.length, synced: true });
    };
    await transfer('first', 'spare/1.dcm');
    await spareReady();
    const spare = spares()[0];
    await transfer('second', 'spare/2.dcm');
    // The spare became the second transfer's file; the next one is another file.
    await spareReady();
    expect(spares()).not.toEqual([spare]);
    // Another instance's start removes an old spare: the next transfer makes its own file.
    fs.rmSync(path.join(root, '.spare', spares()[0]));
    await transfer('third', 'spare/3.dcm');
    await spareReady();
    for (const [key, text] of [['spare/1.dcm', 'first'], ['spare/2.dcm', 'second'], ['spare/3.dcm', 'third']]) {
      expect((await storage.read(key)).toString()).toBe(text);
    }
    expect(fs.readdirSync(path.join(root, '.incoming'))).toEqual([]);
  });

  test('new folders are spare folders renamed into place; folders with files keep them; without spares mkdir makes them', async () => {
    const spareDirs = () => fs.readdirSync(path.join(root, '.spare')).filter((n) => n.endsWith('.dir'));
    const spareDirsReady = async () => {
      await storage.spared();
      expect(spareDirs()).toHaveLength(4);
    };
    const place = async (key: string, text: string) => {
      const temp = storage.createTemp();
      temp.write(Buffer.from(text));
      expect(await temp.place(key)).toBe(true);
      await temp.finish();
    };
    await place('dicom/9/study1/series1/a.dcm', 'a');
    await spareDirsReady();
    const before = spareDirs();
    // Two new folders (the study's, its series') from two spares, three deep from three.
    await place('dicom/9/study2/series1/b.dcm', 'b');
    expect(spareDirs().filter((n) => before.includes(n))).toHaveLength(2);
    await spareDirsReady();
    await place('dicom/10/study1/series1/c.dcm', 'c');
    // A new series of a stored study: its study folder keeps its series and files.
    await spareDirsReady();
    await place('dicom/9/study1/series2/d.dcm', 'd');
    expect(fs.readdirSync(path.join(root, 'dicom/9/study1')).sort()).toEqual(['series1', 'series2']);
    // Spares swept away by another instance's start: mkdir makes the folders.
    await spareDirsReady();
    for (const n of spareDirs()) fs.rmSync(path.join(root, '.spare', n), { recursive: true });
    await place('dicom/11/study1/series1/e.dcm', 'e');
    for (const [key, text] of [['dicom/9/study1/series1/a.dcm', 'a'], ['dicom/9/study2/series1/b.dcm', 'b'], ['dicom/10/study1/series1/c.dcm', 'c'], ['dicom/9/study1/series2/d.dcm', 'd'], ['dicom/11/study1/series1/e.dcm', 'e']]) {
      expect((await storage.read(key)).toString()).toBe(text);
    }
    for (const dir of ['dicom/9', 'dicom/9/study2', 'dicom/10/study1/series1', 'dicom/11/study1/series1']) expect(fs.readdirSync(path.join(root, dir)).length).toBeGreaterThan(0);
  });
});

