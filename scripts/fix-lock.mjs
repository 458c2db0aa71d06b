// The npm registry reachable here lacks some platform-specific optional packages
// (rollup's and utoo's builds for macOS, Windows, musl…). `npm install` then leaves
// them out of package-lock.json, and `npm ci` refuses the lock as out of sync (EUSAGE "Missing: … from lock file").
// This records each missing optional platform package as an entry for its own
// os/cpu/libc, which npm skips on every other platform, so `npm ci` works here and
// elsewhere. Run it after changing dependencies (`npm run fix-lock`); it is idempotent.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lockPath = path.join(root, 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const packages = lock.packages;

const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openbsd', 'openharmony', 'sunos', 'aix', 'netbsd'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'loong64', 'ppc64', 'riscv64', 's390x', 'mips64el'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p)) ?? (parts.includes('universal') ? undefined : undefined);
  if (!os) return undefined;
  const out = { os: [os] };
  if (cpu) out.cpu = [cpu];
  if (parts.includes('musl') || parts.includes('musleabihf')) out.libc = ['musl'];
  else if (os === 'linux' && (parts.includes('gnu') || parts.includes('gnueabihf'))) out.libc = ['glibc'];
  return out;
}

/** Where npm would place `dep` required from the package at `from` (walk up node_modules). */
function installPath(from, dep) {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${dep}`;
    if (packages[candidate]) return { found: true, path: candidate };
    if (!base) return { found: false, path: `node_modules/${dep}` };
    const idx = base.lastIndexOf('/node_modules/');
    base = idx === -1 ? '' : base.slice(0, idx);
  }
}

let added = 0;
for (const [where, meta] of Object.entries({ ...packages })) {
  for (const [dep, range] of Object.entries(meta.optionalDependencies ?? {})) {
    const { found, path: target } = installPath(where, dep);
    if (found) continue;
    const platform = platformOf(dep);
    if (!platform) continue; // not a platform build: leave it to npm
    const version = String(range).replace(/^[\^~=]/, '');
    packages[target] = { version, optional: true, ...platform };
    added += 1;
  }
}
if (added) {
  const sorted = Object.fromEntries(Object.keys(packages).sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))).map((k) => [k, packages[k]]));
  lock.packages = sorted;
  fs.writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
}
console.log(`fix-lock: ${added} platform-only optional package(s) recorded`);
