// Builds the UI with umi when dist/ is missing or older than the client sources.
// "Current" means: dist/.build-stamp holds the hash of every file the build reads
// (src/, config/, locales/, .umirc.ts, package-lock.json). Used by `npm start` and
// by the browser tests' global setup, so both serve the same build.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const INPUTS = ['src', 'config', 'locales', 'schemas', 'public', '.umirc.ts', 'tsconfig.json', 'tsconfig.base.json', 'package-lock.json'];
const SKIP = new Set(['.umi', '.umi-production', '.umi-test', 'node_modules']);

/** SHA-256 over the named files and folders (contents and names), plus `salt`. */
export function hashFiles(inputs, salt = '') {
  const hash = crypto.createHash('sha256');
  hash.update(salt);
  const visit = (rel) => {
    const full = path.join(root, rel);
    if (!fs.existsSync(full)) return;
    const st = fs.statSync(full);
    if (st.isDirectory()) {
      for (const name of fs.readdirSync(full).sort()) if (!SKIP.has(name)) visit(path.join(rel, name));
    } else {
      hash.update(`${rel}\n`);
      hash.update(fs.readFileSync(full));
    }
  };
  for (const input of inputs) visit(input);
  return hash.digest('hex');
}

function hashInputs(distDir) {
  return hashFiles(INPUTS, `API_BASE=${process.env.API_BASE ?? ''}\n${distDir}\n`);
}

export function uiBuildIsCurrent(distDir = path.join(root, 'dist')) {
  const stamp = path.join(distDir, '.build-stamp');
  return fs.existsSync(path.join(distDir, 'index.html')) && fs.existsSync(stamp)
    && fs.readFileSync(stamp, 'utf8') === hashInputs(distDir);
}

export function ensureUiBuild({ log = console.log, distDir = path.join(root, 'dist') } = {}) {
  if (uiBuildIsCurrent(distDir)) return false;
  log('[rcloud] building the UI (first start or changed sources)…');
  const started = Date.now();
  const umi = path.join(root, 'node_modules', '.bin', 'umi');
  const r = spawnSync(umi, ['build'], { cwd: root, stdio: 'inherit', env: { ...process.env, UMI_OUTPUT_PATH: distDir } });
  if (r.status !== 0) throw new Error(`umi build failed with exit code ${r.status}`);
  fs.writeFileSync(path.join(distDir, '.build-stamp'), hashInputs(distDir));
  log(`[rcloud] UI built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  ensureUiBuild();
}
