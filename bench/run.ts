/**
 * `npm run bench [suite...]`: runs the benchmark suites (all, or those named),
 * prints one line per figure with its reference and ratio, and writes the results
 * to bench/.results/latest.json. BENCH_ROUNDS and BENCH_SECONDS tune the effort.
 */
import fs from 'node:fs';
import path from 'node:path';
import { root, type BenchContext } from './lib';
import * as consult from './suites/consult';
import * as dicom from './suites/dicom';
import * as embedded from './suites/embedded';
import * as exam from './suites/exam';
import * as identity from './suites/identity';
import * as platform from './suites/platform';
import * as report from './suites/report';
import * as remote from './suites/remote';
import * as stat from './suites/stat';
import * as viewer from './suites/viewer';

const SUITES: Array<{ name: string; run(ctx: BenchContext): Promise<void> }> = [platform, identity, exam, dicom, viewer, report, remote, embedded, stat, consult];

async function main() {
  const wanted = process.argv.slice(2);
  // Start-up (platform) is measured on an existing build: make sure there is one first.
  // The other suites serve no UI, so running them alone leaves dist/ alone.
  if (!wanted.length || wanted.includes('platform')) {
    const { ensureUiBuild } = await import('../scripts/ui-build.mjs');
    ensureUiBuild();
  }
  const lines: Array<Record<string, string | number>> = [];
  const ctx: BenchContext = {
    rounds: Number(process.env.BENCH_ROUNDS || 3),
    seconds: Number(process.env.BENCH_SECONDS || 5),
    report(line) {
      lines.push(line);
      console.log(Object.entries(line).map(([k, v]) => `${k}=${v}`).join('  '));
    },
  };
  for (const suite of SUITES) {
    if (wanted.length && !wanted.includes(suite.name)) continue;
    console.log(`# ${suite.name} (${ctx.rounds} rounds, median)`);
    await suite.run(ctx);
  }
  const dir = path.join(root, 'bench', '.results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'latest.json'), JSON.stringify({ at: new Date().toISOString(), lines }, null, 2));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
