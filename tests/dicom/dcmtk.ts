/**
 * Running dcmtk's tools and other DICOM peers from tests: a tool run to its end, a
 * server process (storescp, Orthanc) started on a free loopback port and stopped by
 * its own process id, and reading what they wrote.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import * as dcmjs from 'dcmjs';

export { freePort } from '../support/server';

// dcmjs's validation logger reports every unusual VR it reads (dcmtk's files have some); the tests check what matters.
dcmjs.log?.getLogger?.('validation.dcmjs')?.setLevel?.('silent');

export interface Run {
  code: number;
  output: string;
}

/** Runs a dcmtk tool (no shell); resolves with its exit code and everything it printed. */
export function dcmtk(tool: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(tool, args, { encoding: 'utf8', timeout: 120_000, env: { ...process.env, TCP_NODELAY: '1' } }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

/** Resolves once something accepts connections on the port (the peer has started), or throws after `timeoutMs`. */
export async function waitForPort(port: number, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`peer exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A peer process started by a test; `stop` ends it (by its own pid) and waits for its exit. */
export interface Peer {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export async function startPeer(command: string, args: string[], port: number): Promise<Peer> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (output += b.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const peer = {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  try {
    await waitForPort(port, child);
  } catch (e) {
    await peer.stop();
    throw new Error(`${(e as Error).message}: ${output}`);
  }
  return peer;
}

/** The dataset of a Part-10 file: what follows the meta group, whose length (0002,0000) is its first element. */
export function datasetOf(file: Buffer): Buffer {
  if (file.toString('latin1', 128, 132) !== 'DICM') throw new Error('not a Part-10 file');
  return file.subarray(144 + file.readUInt32LE(140));
}

/** A Part-10 file's dataset and meta header, naturalized. */
export function readNatural(file: string): Record<string, any> {
  const bytes = fs.readFileSync(file);
  const parsed = dcmjs.data.DicomMessage.readFile(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  return { ...dcmjs.data.DicomMetaDictionary.naturalizeDataset(parsed.dict), _meta: dcmjs.data.DicomMetaDictionary.naturalizeDataset(parsed.meta) };
}
