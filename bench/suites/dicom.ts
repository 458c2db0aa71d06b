/**
 * Issue #6, the image archive against a reference PACS: Debian's Orthanc (default
 * SQLite index, DICOMweb plugin), started on loopback by this suite with a config of
 * its own in a temp folder, on the same files in the same run.
 * 1. C-STORE ingest: one synthetic CT series (300 instances of 512x512 16-bit, written
 *    once by mock/dicom.ts) sent by dcmtk `storescu` in one association, into a fresh
 *    platform process (`npm start`'s way, its own DATA_DIR: PGlite; and a fresh
 *    PostgreSQL database too when BENCH_DATABASE_URL is set) and into a fresh Orthanc,
 *    each round: instances per second, ratio platform/Orthanc (goal >= 1.0).
 *    Each platform configuration is compared with Orthanc at the same durability of
 *    the stored files: PGlite (FILE_SYNC off, `npm start`'s default: files survive the
 *    process being killed, not a power cut) with Orthanc's "SyncStorageArea": false;
 *    PGlite with FILE_SYNC on and PostgreSQL (FILE_SYNC on by default) with Orthanc's
 *    default (true: each file fsynced). Neither Orthanc's SQLite index (WAL, not synced
 *    per transaction) nor PGlite is flushed per instance; PostgreSQL flushes its WAL at
 *    each commit (synchronous_commit on), which Orthanc's index does not.
 *    One more row puts each side as installed against the other: `npm start`'s
 *    defaults (PGlite, FILE_SYNC off) and Orthanc's (SyncStorageArea on): the issue's figure.
 * 2. QIDO-RS study search with 10,000 studies indexed (1-instance studies sent by
 *    `storescu` to each, the time that takes reported as well, against the Orthanc of
 *    the same durability): a name-prefix + date-range search (limit 20) and a
 *    patient-id search, requests per second (autocannon), against Orthanc's default.
 * 3. WADO-RS retrieval of the 300-instance series (multipart/related;
 *    type="application/dicom"), read whole: MB/s (10^6 bytes), against Orthanc and
 *    against this process reading the same files from disk (the goal: half of it).
 * 4. C-MOVE of the same series (Study Root, STUDY level, movescu) to a dcmtk storescp
 *    on loopback, registered as a device of the calling AE's hospital on the platform
 *    and as a modality on Orthanc: instances per second until the final response, all
 *    received, against Orthanc's default (goal >= 1.0).
 * Without /usr/sbin/Orthanc the Orthanc side is skipped with a message and the
 * platform's figures print alone. BENCH_DICOM_INSTANCES and BENCH_DICOM_STUDIES shrink
 * the data for a quick try (the labels say what was used).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { syntheticSeries, type SyntheticSeriesOptions } from '../../mock/dicom';
import { DEMO_PASSWORD } from '../../mock/identity';
import { ORTHANC, orthancConfig } from '../../tests/support/orthanc';
import { freePort, startPlatformProcess, type RunningPlatform } from '../../tests/support/server';
import { load, median, type BenchContext } from '../lib';

export const name = 'dicom';

const DICOMWEB_PLUGIN = '/usr/share/orthanc/plugins/libOrthancDicomWeb.so';
/** The demo device at hospital A (127.0.0.1), seeded by SEED_DEMO: the platform accepts it. */
const CALLING_AE = 'A_CT1';
const SERIES_INSTANCES = Number(process.env.BENCH_DICOM_INSTANCES || 300);
const STUDIES = Number(process.env.BENCH_DICOM_STUDIES || 10_000);
const ACCEPT_DICOM = 'multipart/related; type="application/dicom"';
/**
 * Debian's dcmtk leaves Nagle's algorithm on unless TCP_NODELAY is set: every C-STORE
 * then waits ~40 ms for a delayed ACK (storescu to storescp: 11 instances/s without,
 * hundreds with), which would measure the kernel's timer, not the archives. Set for
 * storescu, echoscu and Orthanc (dcmtk inside) alike; the platform sets no-delay itself.
 */
const DCMTK_ENV = { ...process.env, TCP_NODELAY: '1' };

const SURNAMES: Array<[string, string]> = [
  ['Wang', '王'], ['Li', '李'], ['Zhang', '张'], ['Liu', '刘'], ['Chen', '陈'], ['Yang', '杨'], ['Huang', '黄'], ['Zhao', '赵'], ['Wu', '吴'], ['Zhou', '周'],
  ['Xu', '徐'], ['Sun', '孙'], ['Ma', '马'], ['Zhu', '朱'], ['Hu', '胡'], ['Guo', '郭'], ['He', '何'], ['Lin', '林'], ['Luo', '罗'], ['Gao', '高'],
];
const GIVEN: Array<[string, string]> = [['Wei', '伟'], ['Qiang', '强'], ['Lei', '磊'], ['Jun', '军'], ['Yang', '洋'], ['Min', '敏'], ['Jing', '静'], ['Li', '丽'], ['Fang', '芳'], ['Tao', '涛']];
const MODALITIES: Array<SyntheticSeriesOptions['modality']> = ['CT', 'MR', 'DX', 'CR', 'US', 'MG'];
/** Study dates of the small studies: one per day from 2026-01-01 on. */
const FIRST_DAY = Date.UTC(2026, 0, 1);
const da = (day: number) => new Date(FIRST_DAY + (day % 365) * 86_400_000).toISOString().slice(0, 10).replace(/-/g, '');
const patientIdOf = (i: number) => `BP${String(i % 4000).padStart(6, '0')}`;

/** A DICOM peer under test: the platform (one database kind) or Orthanc. */
interface Target {
  label: string;
  ae: string;
  dicomPort: number;
  http: string;
  headers: Record<string, string>;
  stop(): Promise<void>;
}

interface TargetKind {
  label: string;
  start(): Promise<Target>;
  orthanc?: boolean;
  /** The Orthanc kind (label) of the same durability this one is compared with. */
  reference?: string;
  /** Kept up after the ingest rounds for the 1-instance studies (and, with `reads`, QIDO-RS and WADO-RS). */
  live?: boolean;
  reads?: boolean;
}

const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

/** Runs storescu on every file of `dir` in one association: wall time and the count of Success responses. */
async function storescu(target: Target, dir: string): Promise<{ ms: number; ok: number; output: string }> {
  const t0 = performance.now();
  const proc = spawn('storescu', ['-v', '-aet', CALLING_AE, '-aec', target.ae, '127.0.0.1', String(target.dicomPort), '+sd', dir], { stdio: ['ignore', 'pipe', 'pipe'], env: DCMTK_ENV });
  let ok = 0;
  let tail = '';
  let output = '';
  const onData = (d: Buffer) => {
    const text = tail + d.toString('latin1');
    const lines = text.split('\n');
    tail = lines.pop()!;
    for (const line of lines) {
      if (line.includes('Received Store Response (Success)')) ok += 1;
      else if (!line.includes('Sending Store Request') && !line.includes('Sending file')) output = (output + line + '\n').slice(-4000);
    }
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
  const ms = performance.now() - t0;
  if (tail.includes('Received Store Response (Success)')) ok += 1;
  if (code !== 0) output += `storescu exited with ${code}\n`;
  return { ms, ok, output };
}

/** Waits until the peer answers a C-ECHO from the calling AE (the platform opens its DICOM port after HTTP). */
async function waitForEcho(target: Target, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = spawnSync('echoscu', ['-aet', CALLING_AE, '-aec', target.ae, '127.0.0.1', String(target.dicomPort)], { encoding: 'latin1', env: DCMTK_ENV });
    if (r.status === 0) return;
    if (Date.now() > deadline) throw new Error(`${target.label}: no C-ECHO answer on port ${target.dicomPort}: ${r.stderr}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

function platformKind(label: string, options: { adminUrl?: string; fileSync: boolean; reference?: string; live?: boolean }): TargetKind {
  const { adminUrl } = options;
  return {
    label,
    reference: options.reference,
    live: options.live,
    reads: options.live,
    async start() {
      let dbName: string | undefined;
      let admin: Client | undefined;
      const env: Record<string, string> = { LOG_LEVEL: 'warn', SKIP_UI_BUILD: 'true', DICOM_PORT: String(await freePort()), FILE_SYNC: options.fileSync ? 'on' : 'off' };
      if (adminUrl) {
        dbName = `rcloud_bench_dicom_${crypto.randomBytes(5).toString('hex')}`;
        admin = new Client({ connectionString: adminUrl });
        await admin.connect();
        await admin.query(`CREATE DATABASE ${dbName}`);
        const url = new URL(adminUrl);
        url.pathname = `/${dbName}`;
        env.DATABASE_URL = url.toString();
      }
      let p: RunningPlatform;
      try {
        p = await startPlatformProcess({ env });
      } catch (e) {
        if (dbName) await admin!.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
        await admin?.end();
        throw e;
      }
      const stop = async () => {
        const { code } = await p.stop();
        if (code !== 0) console.log(`${label}: exited with ${code}:\n${p.output().slice(-2000)}`);
        fs.rmSync(p.dataDir, { recursive: true, force: true });
        if (dbName) await admin!.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
        await admin?.end();
      };
      try {
        const form = `loginType=password&mobile=13800000001&password=${encodeURIComponent(Buffer.from(DEMO_PASSWORD).toString('base64'))}`;
        const login = await fetch(`${p.url}/api/uaa/v1/login`, {
          method: 'POST',
          headers: { 'X-App-Id': 'rcloud-doctor', 'Content-Type': 'application/x-www-form-urlencoded' },
          body: form,
        });
        const token = ((await login.json()) as { data?: { token?: string } }).data?.token;
        if (!token) throw new Error(`${label}: login failed (${login.status})`);
        const target: Target = { label, ae: 'RCLOUD', dicomPort: Number(env.DICOM_PORT), http: p.url, headers: { 'X-App-Id': 'rcloud-doctor', 'X-Auth-Token': token }, stop };
        await waitForEcho(target);
        return target;
      } catch (e) {
        await stop();
        throw e;
      }
    },
  };
}

/** Orthanc with each stored file fsynced (its default) or not. */
const ORTHANC_SYNC = 'Orthanc (SyncStorageArea on, its default)';
const ORTHANC_NO_SYNC = 'Orthanc (SyncStorageArea off)';

const orthancKind = (sync: boolean): TargetKind => ({
  label: sync ? ORTHANC_SYNC : ORTHANC_NO_SYNC,
  orthanc: true,
  live: true,
  // Reads do not depend on how writes were synced: QIDO-RS and WADO-RS against the default.
  reads: sync,
  async start() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-bench-orthanc-'));
    const httpPort = await freePort();
    const dicomPort = await freePort();
    const config = {
      ...orthancConfig(dir, { name: 'RCLOUD-BENCH-REFERENCE', aet: 'ORTHANC', httpPort, dicomPort }),
      SyncStorageArea: sync,
      // The bench's movescu calls as A_CT1, a modality this Orthanc was not told of.
      DicomAlwaysAllowMove: true,
      Plugins: [DICOMWEB_PLUGIN],
      DicomWeb: { Enable: true, Root: '/dicom-web/' },
    };
    fs.writeFileSync(path.join(dir, 'orthanc.json'), JSON.stringify(config, null, 2));
    const proc: ChildProcess = spawn(ORTHANC, [path.join(dir, 'orthanc.json'), `--logdir=${dir}`], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], env: DCMTK_ENV, detached: true });
    let err = '';
    proc.stderr!.on('data', (d) => (err = (err + d).slice(-4000)));
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    const stop = async () => {
      // Its own process group (detached), stopped whole: nothing it started outlives the run.
      if (proc.exitCode === null && proc.signalCode === null) process.kill(-proc.pid!, 'SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    };
    const http = `http://127.0.0.1:${httpPort}`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (proc.exitCode !== null) {
        await stop();
        throw new Error(`Orthanc exited during start (${proc.exitCode}): ${err}`);
      }
      try {
        if ((await fetch(`${http}/system`)).status === 200) break;
      } catch {
        /* not up yet */
      }
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`Orthanc did not answer /system in time: ${err}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const target: Target = { label: sync ? ORTHANC_SYNC : ORTHANC_NO_SYNC, ae: 'ORTHANC', dicomPort, http, headers: {}, stop };
    await waitForEcho(target);
    return target;
  },
});

/** GET with node:http, reading the body whole: status, bytes and milliseconds. */
function getAll(url: string, headers: Record<string, string>): Promise<{ status: number; bytes: number; ms: number; head: Buffer }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.get(url, { headers, agent: false }, (res) => {
      let bytes = 0;
      let head = Buffer.alloc(0);
      res.on('data', (chunk: Buffer) => {
        if (head.length < 600) head = Buffer.concat([head, chunk.subarray(0, 600)]);
        bytes += chunk.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, ms: performance.now() - t0, head }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

async function getJson(target: Target, url: string): Promise<{ status: number; body: unknown }> {
  const r = await fetch(`${target.http}${url}`, { headers: { ...target.headers, Accept: 'application/dicom+json' } });
  const text = await r.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : [];
  } catch {
    /* not JSON */
  }
  return { status: r.status, body };
}

/** Writes the CT series and the small studies, each file once, to `dir`. */
function writeData(dir: string) {
  const seriesDir = path.join(dir, 'series');
  const studiesDir = path.join(dir, 'studies');
  fs.mkdirSync(seriesDir);
  fs.mkdirSync(studiesDir);
  const series = syntheticSeries({
    count: SERIES_INSTANCES,
    rows: 512,
    columns: 512,
    uidRoot: '1.2.826.0.1.3680043.10.1082.77',
    patientName: '王建国',
    patientNameEn: 'Wang^Jianguo',
    patientId: 'BENCH0001',
    accessionNumber: 'BENCHCT0001',
    studyDate: '20261120',
    studyDescription: 'CT chest bench',
  });
  let seriesBytes = 0;
  for (const [i, inst] of series.instances.entries()) {
    fs.writeFileSync(path.join(seriesDir, `${String(i + 1).padStart(4, '0')}.dcm`), inst.bytes);
    seriesBytes += inst.bytes.length;
  }
  for (let i = 0; i < STUDIES; i++) {
    const [sn, sz] = SURNAMES[i % SURNAMES.length];
    const [gn, gz] = GIVEN[Math.floor(i / SURNAMES.length) % GIVEN.length];
    const small = syntheticSeries({
      count: 1,
      rows: 16,
      columns: 16,
      uidRoot: `1.2.826.0.1.3680043.10.1082.78.${i + 1}`,
      patientName: sz + gz,
      patientNameEn: `${sn}^${gn}`,
      patientId: patientIdOf(i),
      accessionNumber: `BQ${String(i).padStart(8, '0')}`,
      modality: MODALITIES[i % MODALITIES.length],
      studyDate: da(Math.floor(i * 365 / STUDIES) + (i % 7)),
      studyTime: '101500',
      studyDescription: 'Synthetic study',
    });
    fs.writeFileSync(path.join(studiesDir, `${String(i).padStart(6, '0')}.dcm`), small.instances[0].bytes);
  }
  return { seriesDir, studiesDir, studyUid: series.studyUid, seriesUid: series.seriesUid, seriesBytes };
}

const round = (v: number, digits = 1) => +v.toFixed(digits);

const MOVE_DESTINATION = 'BENCH_SCP';

/** Makes `MOVE_DESTINATION` at 127.0.0.1:`port` known to a target: a device of the calling AE's hospital, or an Orthanc modality. */
async function registerMoveDestination(target: Target, orthanc: boolean, port: number): Promise<void> {
  const json = { ...target.headers, 'Content-Type': 'application/json' };
  if (orthanc) {
    const r = await fetch(`${target.http}/modalities/${MOVE_DESTINATION}`, { method: 'PUT', headers: json, body: JSON.stringify({ AET: MOVE_DESTINATION, Host: '127.0.0.1', Port: port }) });
    if (!r.ok) throw new Error(`${target.label}: PUT /modalities answered ${r.status}`);
    return;
  }
  const list = await fetch(`${target.http}/api/ris/v1/device/list`, { method: 'POST', headers: json, body: JSON.stringify({ pageSize: 100 }) });
  if (!list.ok) throw new Error(`${target.label}: /api/ris/v1/device/list answered ${list.status}`);
  // The list's rows wherever the envelope keeps them: the calling device's hospital is all that is needed.
  const rows: Array<{ aeTitle?: string; hospitalId?: number }> = [];
  const collectRows = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(collectRows);
    else if (v && typeof v === 'object') {
      if ('aeTitle' in v) rows.push(v as (typeof rows)[number]);
      else Object.values(v).forEach(collectRows);
    }
  };
  collectRows(await list.json());
  const hospitalId = rows.find((d) => d.aeTitle === CALLING_AE)?.hospitalId;
  if (!hospitalId) throw new Error(`${target.label}: device ${CALLING_AE} not found in /api/ris/v1/device/list`);
  const saved = await fetch(`${target.http}/api/ris/v1/device/save`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ hospitalId, name: 'Bench storescp', modality: 'OT', aeTitle: MOVE_DESTINATION, ip: '127.0.0.1', port }),
  });
  const body = (await saved.json()) as { status?: string };
  if (body.status !== '0') throw new Error(`${target.label}: saving the move destination answered ${JSON.stringify(body)}`);
}

/** One C-MOVE of a study to the storescp writing into `dir` (emptied first): wall time and the files received. */
async function movescu(target: Target, studyUid: string, dir: string): Promise<{ ms: number; received: number; output: string }> {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir);
  const t0 = performance.now();
  const args = ['-S', '-aet', CALLING_AE, '-aec', target.ae, '-aem', MOVE_DESTINATION, '-k', 'QueryRetrieveLevel=STUDY', '-k', `StudyInstanceUID=${studyUid}`, '127.0.0.1', String(target.dicomPort)];
  const proc = spawn('movescu', args, { stdio: ['ignore', 'pipe', 'pipe'], env: DCMTK_ENV });
  let output = '';
  const keep = (d: Buffer) => (output = (output + d.toString('latin1')).slice(-4000));
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
  const ms = performance.now() - t0;
  if (code !== 0) output += `movescu exited with ${code}\n`;
  return { ms, received: fs.readdirSync(dir).length, output };
}

/** Reads every file of a directory to its end, one after another (as a WADO-RS series is sent); the bytes read. */
async function readFiles(dir: string): Promise<number> {
  let bytes = 0;
  for (const name of fs.readdirSync(dir).sort()) {
    for await (const chunk of fs.createReadStream(path.join(dir, name), { highWaterMark: 1024 * 1024 })) bytes += (chunk as Buffer).length;
  }
  return bytes;
}

export async function run(ctx: BenchContext) {
  for (const cmd of ['storescu', 'echoscu']) {
    if (!has(cmd)) {
      console.log(`skipped: needs dcmtk's ${cmd} (apt-get install -y dcmtk)`);
      ctx.report({ bench: 'dicom', skipped: `no ${cmd}` });
      return;
    }
  }
  const kinds: TargetKind[] = [
    platformKind('platform (PGlite, FILE_SYNC off)', { fileSync: false, reference: ORTHANC_NO_SYNC, live: true }),
    platformKind('platform (PGlite, FILE_SYNC on)', { fileSync: true, reference: ORTHANC_SYNC }),
  ];
  const adminUrl = process.env.BENCH_DATABASE_URL;
  if (adminUrl) kinds.push(platformKind('platform (PostgreSQL, FILE_SYNC on)', { adminUrl, fileSync: true, reference: ORTHANC_SYNC, live: true }));
  else console.log('platform on PostgreSQL not measured: set BENCH_DATABASE_URL to a server where the suite may create a database');
  const orthanc = fs.existsSync(ORTHANC) && fs.existsSync(DICOMWEB_PLUGIN);
  if (orthanc) kinds.push(orthancKind(false), orthancKind(true));
  else console.log(`Orthanc-side figures skipped: ${ORTHANC} or ${DICOMWEB_PLUGIN} missing (apt-get install -y orthanc orthanc-dicomweb); the platform's figures print without a reference`);

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-bench-dicom-'));
  const live: Target[] = [];
  try {
    let t0 = performance.now();
    const data = writeData(dataDir);
    console.log(`data: ${SERIES_INSTANCES} CT instances 512x512 16-bit (${round(data.seriesBytes / 1e6)} MB) and ${STUDIES} 1-instance studies written in ${round((performance.now() - t0) / 1000)} s`);

    // 1. Ingest: a fresh peer per round, the order turning so noise hits every side; the
    // last round's peers stay up, with the series, for the searches and the retrieval.
    const rates = new Map<string, number[]>(kinds.map((k) => [k.label, []]));
    const failures = new Map<string, number>(kinds.map((k) => [k.label, 0]));
    for (let r = 0; r < ctx.rounds; r++) {
      const last = r === ctx.rounds - 1;
      for (let k = 0; k < kinds.length; k++) {
        const kind = kinds[(k + r) % kinds.length];
        const target = await kind.start();
        try {
          const sent = await storescu(target, data.seriesDir);
          if (sent.ok !== SERIES_INSTANCES) {
            console.log(`${kind.label}: ${sent.ok} of ${SERIES_INSTANCES} stored:\n${sent.output}`);
            failures.set(kind.label, failures.get(kind.label)! + SERIES_INSTANCES - sent.ok);
          }
          rates.get(kind.label)!.push(sent.ok / (sent.ms / 1000));
        } finally {
          if (last && kind.live) live.push(target);
          else await target.stop();
        }
      }
    }
    const ingestLabel = `C-STORE ingest of ${SERIES_INSTANCES} CT 512x512 16-bit (storescu, 1 association) instances/s`;
    const version = orthanc ? orthancVersion() : '';
    for (const kind of kinds) {
      const value = median(rates.get(kind.label)!);
      if (kind.orthanc) {
        ctx.report({ bench: `${ingestLabel}, ${kind.label.replace('Orthanc', `Orthanc ${version}`)} (reference)`, value: round(value), failures: failures.get(kind.label)! });
        continue;
      }
      const ref = kind.reference && rates.has(kind.reference) ? median(rates.get(kind.reference)!) : undefined;
      ctx.report({ bench: `${ingestLabel}, ${kind.label}`, value: round(value), ...(ref ? { reference: round(ref), vs: kind.reference!, ratio: round(value / ref, 2), goal: '>= 1.0' } : {}), failures: failures.get(kind.label)! });
      // The issue's figure: each as installed, `npm start`'s defaults (PGlite, FILE_SYNC off) against Orthanc's.
      const installed = rates.get(ORTHANC_SYNC);
      if (kind === kinds[0] && installed && kind.reference !== ORTHANC_SYNC) {
        const def = median(installed);
        ctx.report({ bench: `${ingestLabel}, platform and Orthanc with their defaults`, value: round(value), reference: round(def), vs: ORTHANC_SYNC, ratio: round(value / def, 2), goal: '>= 1.0' });
      }
    }

    // 2. QIDO-RS with the small studies indexed, sent by storescu to each (timed too).
    const smallRates = new Map<string, number>();
    for (const target of live) {
      console.log(`${target.label}: sending ${STUDIES} 1-instance studies…`);
      t0 = performance.now();
      const sent = await storescu(target, data.studiesDir);
      smallRates.set(target.label, sent.ok / ((performance.now() - t0) / 1000));
      failures.set(target.label, STUDIES - sent.ok);
      if (sent.ok !== STUDIES) console.log(`${target.label}: ${sent.ok} of ${STUDIES} small studies stored:\n${sent.output}`);
    }
    const kindOf = (target: Target) => kinds.find((k) => k.label === target.label)!;
    for (const target of live) {
      const v = smallRates.get(target.label)!;
      const kind = kindOf(target);
      if (kind.orthanc) {
        ctx.report({ bench: `C-STORE of ${STUDIES} 1-instance studies instances/s, ${target.label} (reference)`, value: round(v), failures: failures.get(target.label)! });
        continue;
      }
      const smallRef = kind.reference ? smallRates.get(kind.reference) : undefined;
      ctx.report({ bench: `C-STORE of ${STUDIES} 1-instance studies (16x16, storescu, 1 association) instances/s, ${target.label}`, value: round(v), ...(smallRef ? { reference: round(smallRef), vs: kind.reference!, ratio: round(v / smallRef, 2) } : {}), failures: failures.get(target.label)! });
    }
    // QIDO-RS and WADO-RS: the platform's configurations kept up, against Orthanc's default.
    const readers = live.filter((t) => kindOf(t).reads);
    const orthancLive = readers.find((t) => kindOf(t).orthanc);
    const refLabel = orthancLive?.label ?? '';

    const queries = [
      { what: `name prefix + 90-day StudyDate range, limit 20`, url: `/dicom-web/studies?PatientName=Zhang*&StudyDate=${da(90)}-${da(179)}&limit=20` },
      { what: 'PatientID', url: `/dicom-web/studies?PatientID=${patientIdOf(1234 % STUDIES)}` },
    ];
    // Who answers QIDO-RS at all (a side without DICOMweb is reported, not measured).
    const qido: Target[] = [];
    for (const target of readers) {
      const probe = await getJson(target, queries[0].url);
      if (probe.status !== 200) {
        console.log(`${target.label}: QIDO-RS not measured: GET ${queries[0].url} answered ${probe.status} ${String(typeof probe.body === 'string' ? probe.body : JSON.stringify(probe.body)).slice(0, 200)}`);
        continue;
      }
      qido.push(target);
    }
    // The same matches on every side, or the figures say not: each query once without its page limit.
    const matches = new Map<string, string>();
    for (const target of qido) {
      for (const [i, q] of queries.entries()) {
        const all = await getJson(target, `${q.url.replace(/&limit=\d+$/, '')}&limit=5000`);
        const page = await getJson(target, q.url);
        const count = (r: { body: unknown }) => (Array.isArray(r.body) ? r.body.length : -1);
        matches.set(`${target.label}|${i}`, `${count(all)} (page ${count(page)})`);
      }
      console.log(`${target.label}: QIDO-RS matches: ${queries.map((q, i) => `${q.what}: ${matches.get(`${target.label}|${i}`)}`).join('; ')}`);
    }
    for (const [qi, q] of queries.entries()) {
      const rps = new Map<string, number[]>(qido.map((t) => [t.label, []]));
      const p99 = new Map<string, number[]>(qido.map((t) => [t.label, []]));
      const bad = new Map<string, number>(qido.map((t) => [t.label, 0]));
      for (let r = 0; r < ctx.rounds; r++) {
        for (let k = 0; k < qido.length; k++) {
          const target = qido[(k + r) % qido.length];
          const res = await load(`${target.http}${q.url}`, { connections: 10, seconds: ctx.seconds, headers: { ...target.headers, Accept: 'application/dicom+json' } });
          rps.get(target.label)!.push(res.rps);
          p99.get(target.label)!.push(res.p99ms);
          bad.set(target.label, bad.get(target.label)! + res.errors + res.non2xx);
        }
      }
      const qRef = orthancLive && qido.includes(orthancLive) ? median(rps.get(refLabel)!) : undefined;
      for (const target of qido) {
        if (target === orthancLive) continue;
        const v = median(rps.get(target.label)!);
        ctx.report({
          bench: `QIDO-RS study search (${q.what}) with ${STUDIES} studies req/s (10 conn), ${target.label}`,
          value: Math.round(v),
          p99ms: median(p99.get(target.label)!),
          ...(qRef ? { reference: Math.round(qRef), ratio: round(v / qRef, 2) } : {}),
          failures: bad.get(target.label)!,
          matches: matches.get(`${target.label}|${qi}`)!,
        });
      }
      if (qRef) ctx.report({ bench: `QIDO-RS study search (${q.what}) req/s, ${refLabel} (reference)`, value: Math.round(qRef), p99ms: median(p99.get(refLabel)!), failures: bad.get(refLabel)!, matches: matches.get(`${refLabel}|${qi}`)! });
    }

    // 3. WADO-RS: the whole series, multipart, read to the end.
    const wadoUrl = `/dicom-web/studies/${data.studyUid}/series/${data.seriesUid}`;
    const wado: Target[] = [];
    for (const target of readers) {
      const probe = await getAll(`${target.http}${wadoUrl}`, { ...target.headers, Accept: ACCEPT_DICOM });
      if (probe.status !== 200 || probe.bytes < data.seriesBytes) {
        console.log(`${target.label}: WADO-RS not measured: GET ${wadoUrl} answered ${probe.status} with ${probe.bytes} bytes (the files are ${data.seriesBytes}): ${probe.head.toString('latin1').slice(0, 200)}`);
        continue;
      }
      wado.push(target);
    }
    const mbps = new Map<string, number[]>(wado.map((t) => [t.label, []]));
    const sizes = new Map<string, number>();
    for (let r = 0; r < ctx.rounds; r++) {
      for (let k = 0; k < wado.length; k++) {
        const target = wado[(k + r) % wado.length];
        let bytes = 0;
        let ms = 0;
        do {
          const res = await getAll(`${target.http}${wadoUrl}`, { ...target.headers, Accept: ACCEPT_DICOM });
          if (res.status !== 200) throw new Error(`${target.label}: GET ${wadoUrl}: ${res.status}`);
          bytes += res.bytes;
          ms += res.ms;
          sizes.set(target.label, res.bytes);
        } while (ms < Math.min(ctx.seconds, 2) * 1000);
        mbps.get(target.label)!.push(bytes / 1e6 / (ms / 1000));
      }
    }
    const wRef = orthancLive && wado.includes(orthancLive) ? median(mbps.get(refLabel)!) : undefined;
    // The floor under any server: the same files read whole from disk (page cache) by this process, as many rounds.
    const disk: number[] = [];
    for (let r = 0; r < ctx.rounds; r++) {
      let bytes = 0;
      const start = performance.now();
      do bytes += await readFiles(data.seriesDir);
      while (performance.now() - start < Math.min(ctx.seconds, 2) * 1000);
      disk.push(bytes / 1e6 / ((performance.now() - start) / 1000));
    }
    const diskRef = median(disk);
    for (const target of wado) {
      if (target === orthancLive) continue;
      const v = median(mbps.get(target.label)!);
      ctx.report({ bench: `WADO-RS series retrieval (${SERIES_INSTANCES} instances, ${round(sizes.get(target.label)! / 1e6)} MB multipart) MB/s, ${target.label}`, value: round(v), ...(wRef ? { reference: round(wRef), ratio: round(v / wRef, 2) } : {}) });
      ctx.report({ bench: `WADO-RS series MB/s vs reading the same files from disk (goal 0.5), ${target.label}`, value: round(v), reference: round(diskRef), ratio: round(v / diskRef, 2) });
    }
    ctx.report({ bench: `Reading the series' ${SERIES_INSTANCES} files from disk MB/s (reference)`, value: round(diskRef) });
    if (wRef) ctx.report({ bench: `WADO-RS series retrieval (${round(sizes.get(refLabel)! / 1e6)} MB multipart) MB/s, ${refLabel} (reference)`, value: round(wRef) });

    // 4. C-MOVE of the series' study to one storescp (its files written; emptied before each move).
    if (has('movescu') && has('storescp')) {
      const scpPort = await freePort();
      const scpDir = path.join(dataDir, 'moved');
      fs.mkdirSync(scpDir);
      const scp = spawn('storescp', ['-aet', MOVE_DESTINATION, '-od', scpDir, String(scpPort)], { stdio: 'ignore', env: DCMTK_ENV, detached: true });
      try {
        await waitForEcho({ label: 'storescp', ae: MOVE_DESTINATION, dicomPort: scpPort, http: '', headers: {}, stop: async () => undefined });
        const movers: Target[] = [];
        for (const target of readers) {
          try {
            await registerMoveDestination(target, !!kindOf(target).orthanc, scpPort);
            const probe = await movescu(target, data.studyUid, scpDir);
            if (probe.received !== SERIES_INSTANCES) throw new Error(`${probe.received} of ${SERIES_INSTANCES} received:\n${probe.output}`);
            movers.push(target);
          } catch (e) {
            console.log(`${target.label}: C-MOVE not measured: ${(e as Error).message}`);
          }
        }
        const rates = new Map<string, number[]>(movers.map((t) => [t.label, []]));
        const lost = new Map<string, number>(movers.map((t) => [t.label, 0]));
        for (let r = 0; r < ctx.rounds; r++) {
          for (let k = 0; k < movers.length; k++) {
            const target = movers[(k + r) % movers.length];
            const moved = await movescu(target, data.studyUid, scpDir);
            lost.set(target.label, lost.get(target.label)! + SERIES_INSTANCES - moved.received);
            rates.get(target.label)!.push(moved.received / (moved.ms / 1000));
          }
        }
        const moveRef = orthancLive && movers.includes(orthancLive) ? median(rates.get(refLabel)!) : undefined;
        const moveLabel = `C-MOVE of a ${SERIES_INSTANCES}-instance CT study to a storescp (movescu, study root) instances/s`;
        for (const target of movers) {
          if (target === orthancLive) continue;
          const v = median(rates.get(target.label)!);
          ctx.report({ bench: `${moveLabel}, ${target.label}`, value: round(v), ...(moveRef ? { reference: round(moveRef), vs: refLabel, ratio: round(v / moveRef, 2), goal: '>= 1.0' } : {}), failures: lost.get(target.label)! });
        }
        if (moveRef) ctx.report({ bench: `${moveLabel}, ${refLabel} (reference)`, value: round(moveRef), failures: lost.get(refLabel)! });
      } finally {
        if (scp.exitCode === null && scp.signalCode === null) process.kill(-scp.pid!, 'SIGTERM');
      }
    } else console.log("C-MOVE not measured: needs dcmtk's movescu and storescp");
  } finally {
    for (const target of live) await target.stop().catch((e) => console.log(`${target.label}: stop failed: ${e}`));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function orthancVersion(): string {
  const r = spawnSync(ORTHANC, ['--version'], { encoding: 'utf8' });
  return (r.stdout.match(/Orthanc\s+(\d[\w.+~-]*)/) ?? [])[1] ?? '';
}
