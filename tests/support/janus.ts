/**
 * Debian's Janus as the video room tests start it: a process of their own with a config
 * folder generated in a temp dir (never the system's /etc/janus), the VideoRoom plugin
 * and the WebSockets transport only (every other plugin, transport, logger and event
 * handler in the `disable` lists), its WebSocket API on a free loopback port, no admin
 * API. Ready when that port answers a Janus "info" request (its state, not a delay);
 * its log file is kept with a failed test (tests/support/failures.ts) and removed
 * otherwise.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { keepOnFailure } from './failures';
import { freePort } from './server';

export const JANUS = process.env.JANUS_BIN || '/usr/bin/janus';
/** Where Debian puts the modules Janus loads (plugins/, transports/, events/, loggers/). */
const MODULES = process.env.JANUS_MODULES || '/usr/lib/x86_64-linux-gnu/janus';

/** The modules this Janus loads; everything else found in their folders is disabled by name. */
const WANTED = new Set(['libjanus_videoroom.so', 'libjanus_websockets.so']);

export interface JanusProcess {
  /** Its WebSocket API, the platform's JANUS_URL. */
  url: string;
  port: number;
  log(): string;
  stop(): Promise<void>;
}

export interface JanusOptions {
  /**
   * The only interfaces or addresses Janus gathers ICE candidates on (its
   * `nat.ice_enforce_list`): the test's veth addresses, so its candidates are the ones
   * the browsers can pair (ICE does not pair loopback).
   */
  iceEnforce?: string[];
}

/** The shared objects of a module folder that are not wanted: Janus's `disable` list for it. */
function unwanted(folder: string): string {
  const dir = path.join(MODULES, folder);
  const names = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  return names.filter((n) => n.endsWith('.so') && !WANTED.has(n)).join(',');
}

/** A jcfg (libconfig) file from sections of plain values. */
function jcfg(sections: Record<string, Record<string, string | number | boolean>>): string {
  const value = (v: string | number | boolean) => (typeof v === 'string' ? JSON.stringify(v) : String(v));
  return Object.entries(sections)
    .map(([name, entries]) => `${name}: {\n${Object.entries(entries).map(([k, v]) => `\t${k} = ${value(v)}\n`).join('')}}\n`)
    .join('\n');
}

/** Resolves once Janus answers `info` on its WebSocket API (subprotocol janus-protocol). */
function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, 'janus-protocol');
    const done = (ok: boolean) => {
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      ws.close();
      resolve(ok);
    };
    ws.once('open', () => ws.send(JSON.stringify({ janus: 'info', transaction: 'ready' })));
    ws.once('message', (raw) => done(JSON.parse(String(raw)).janus === 'server_info'));
    ws.once('error', () => done(false));
  });
}

export async function startJanus(opts: JanusOptions = {}): Promise<JanusProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-janus-'));
  const port = await freePort();
  const logFile = path.join(dir, 'janus.log');
  fs.writeFileSync(
    path.join(dir, 'janus.jcfg'),
    jcfg({
      general: {
        configs_folder: dir,
        plugins_folder: path.join(MODULES, 'plugins'),
        transports_folder: path.join(MODULES, 'transports'),
        events_folder: path.join(MODULES, 'events'),
        loggers_folder: path.join(MODULES, 'loggers'),
        log_to_file: logFile,
        debug_level: 4,
        debug_timestamps: true,
        // A session the platform stops keeping alive goes after this (janode pings every 30 s).
        session_timeout: 60,
        server_name: 'rcloud-test',
      },
      media: {},
      nat: {
        nice_debug: false,
        ...(opts.iceEnforce?.length ? { ice_enforce_list: opts.iceEnforce.join(',') } : {}),
      },
      plugins: { disable: unwanted('plugins') },
      transports: { disable: unwanted('transports') },
      loggers: { disable: unwanted('loggers') },
      events: { broadcast: false, disable: unwanted('events') },
    }),
  );
  fs.writeFileSync(
    path.join(dir, 'janus.transport.websockets.jcfg'),
    jcfg({
      general: { json: 'plain', ws: true, ws_port: port, ws_ip: '127.0.0.1', wss: false },
      admin: { admin_ws: false, admin_wss: false },
    }),
  );
  // No rooms of its own: the platform creates each meeting's room.
  fs.writeFileSync(path.join(dir, 'janus.plugin.videoroom.jcfg'), jcfg({ general: {} }));

  const proc: ChildProcess = spawn(JANUS, ['-C', path.join(dir, 'janus.jcfg'), '-F', dir, '-N', '-o'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr?.on('data', (d) => (stderr += String(d)));
  let exited: number | null | undefined;
  const gone = new Promise<void>((resolve) =>
    proc.once('exit', (code) => {
      exited = code;
      resolve();
    }),
  );
  const log = () => `${fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''}${stderr ? `\n--- stderr ---\n${stderr}` : ''}`;
  const forget = keepOnFailure({ keep: async (into) => fs.writeFileSync(path.join(into, `janus-${port}.log`), log()) });
  const url = `ws://127.0.0.1:${port}`;
  const stop = async () => {
    forget();
    if (exited === undefined) {
      proc.kill('SIGTERM');
      // Janus ends its sessions and plugins on SIGTERM; a second signal ends it at once.
      const slow = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(slow);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  // Ready when its WebSocket answers; an exit before that (or no answer in two minutes, a
  // wedged start) is a failure that carries its log.
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (exited !== undefined || Date.now() > deadline) {
      const text = log();
      await stop();
      throw new Error(`janus ${exited !== undefined ? `exited (${exited})` : 'did not answer'} on ${url}:\n${text.slice(-4000)}`);
    }
    if (await answers(url)) break;
    await new Promise<void>((resolve) => {
      const retry = setTimeout(resolve, 100);
      void gone.then(() => {
        clearTimeout(retry);
        resolve();
      });
    });
  }
  return { url, port, log, stop };
}
