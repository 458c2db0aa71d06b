/**
 * Issue #20 (reading together): presenter-to-follower sync latency through the video
 * room's signalling socket, on the embedded database. The presenter sends a viewer
 * state (one image step), the server stores it (video_sync_event) and passes it on; the
 * time is from the presenter's send to the follower's receipt, both sockets in this
 * process (one clock). Reference in the same run: a round trip of the same socket
 * without the database (the hub's ping), i.e. what the network and the server's
 * WebSocket cost alone, at the same percentile. Goal: p95 under 100 ms.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { DEMO_PASSWORD } from '../../mock/identity';
import { median, percentile, root, startChild, waitFor, type BenchContext } from '../lib';

export const name = 'consult';

/** Messages per round: enough for a p95 of its own. */
const STEPS = 200;

type Message = Record<string, any>;

function socket(url: string): Promise<{ ws: WebSocket; next(match: (m: Message) => boolean): Promise<Message> }> {
  const ws = new WebSocket(url);
  const waiting: Array<{ match: (m: Message) => boolean; resolve(m: Message): void }> = [];
  ws.on('message', (raw) => {
    const m = JSON.parse(String(raw)) as Message;
    const i = waiting.findIndex((w) => w.match(m));
    if (i >= 0) waiting.splice(i, 1)[0].resolve(m);
  });
  const next = (match: (m: Message) => boolean) => new Promise<Message>((resolve) => waiting.push({ match, resolve }));
  return new Promise((resolve, reject) => ws.once('open', () => resolve({ ws, next })).once('error', reject));
}

export async function run(ctx: BenchContext) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-bench-'));
  const platform = await startChild(process.execPath, [path.join(root, 'scripts', 'start.mjs')], { DATA_DIR: dataDir, LOG_LEVEL: 'warn', SKIP_UI_BUILD: 'true' });
  try {
    const base = `http://127.0.0.1:${platform.port}`;
    await waitFor(`${base}/api/health`);
    const login = async (mobile: string) => {
      const body = `loginType=password&mobile=${mobile}&password=${encodeURIComponent(Buffer.from(DEMO_PASSWORD).toString('base64'))}`;
      const r = await fetch(`${base}/api/uaa/v1/login`, { method: 'POST', headers: { 'X-App-Id': 'rcloud-doctor', 'Content-Type': 'application/x-www-form-urlencoded' }, body });
      return (await r.json()).data.token as string;
    };
    const admin = await login('13800000001');
    const expert = await login('13800000006');
    const consultationId = 424242;
    const started = await fetch(`${base}/api/consult/v1/video/room`, {
      method: 'POST',
      headers: { 'X-App-Id': 'rcloud-doctor', 'X-Auth-Token': admin, 'Content-Type': 'application/json' },
      body: JSON.stringify({ consultationId }),
    });
    if ((await started.json()).status !== '0') throw new Error('the room did not start');
    const url = `${base.replace('http', 'ws')}/api/consult/v1/video/socket`;
    const presenter = await socket(url);
    presenter.ws.send(JSON.stringify({ type: 'join', appId: 'rcloud-doctor', token: admin, consultationId }));
    await presenter.next((m) => m.type === 'welcome');
    const follower = await socket(url);
    follower.ws.send(JSON.stringify({ type: 'join', appId: 'rcloud-doctor', token: expert, consultationId }));
    await follower.next((m) => m.type === 'welcome');

    const p95s: number[] = [];
    const p50s: number[] = [];
    const refs: number[] = [];
    const refs50: number[] = [];
    let step = 0;
    for (let round = 0; round < ctx.rounds; round++) {
      const sync: number[] = [];
      const echo: number[] = [];
      for (let i = 0; i < STEPS; i++) {
        const t0 = performance.now();
        presenter.ws.send(JSON.stringify({ type: 'ping', t: t0 }));
        await presenter.next((m) => m.type === 'pong' && m.t === t0);
        echo.push(performance.now() - t0);
        step += 1;
        const state = { studyUid: '1.2.3', seriesUid: '1.2.3.1', index: step, voi: { lower: -160, upper: 240 }, zoom: 1, pan: [0, 0] };
        const t1 = performance.now();
        const seen = follower.next((m) => m.type === 'view' && m.state.index === step);
        presenter.ws.send(JSON.stringify({ type: 'view', state }));
        await seen;
        sync.push(performance.now() - t1);
      }
      p95s.push(percentile(sync, 95));
      p50s.push(percentile(sync, 50));
      refs.push(percentile(echo, 95));
      refs50.push(percentile(echo, 50));
    }
    presenter.ws.close();
    follower.ws.close();
    const ref = median(refs);
    ctx.report({ bench: `presenter→follower view sync p95 ms (${STEPS} steps, stored)`, value: +median(p95s).toFixed(2), reference: +ref.toFixed(2), ratio: +(median(p95s) / ref).toFixed(2), goal: '< 100 ms' });
    const ref50 = median(refs50);
    ctx.report({ bench: 'presenter→follower view sync p50 ms', value: +median(p50s).toFixed(2), reference: +ref50.toFixed(2), ratio: +(median(p50s) / ref50).toFixed(2) });
  } finally {
    await platform.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
