// Bundles the TypeScript server into .build/server.cjs with esbuild (packages stay
// external), so `npm start` loads one prepared file instead of compiling TypeScript
// at every start. Rebuilt when the server's sources change (hash in .build/server.stamp).
// Development (`npm run dev`) and tests run the sources directly through tsx.
// The embedded database's worker thread (server/db/pgliteWorker.mjs, plain JavaScript)
// is loaded by path, not imported, so it is copied next to the bundle.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hashFiles, root } from './ui-build.mjs';

// src/shared (and the schemas its catalogue imports) is server code too.
const INPUTS = ['server', 'src/shared', 'schemas', 'config', 'locales', 'mock', 'package.json', 'package-lock.json'];
export const serverBundle = path.join(root, '.build', 'server.cjs');
const stamp = path.join(root, '.build', 'server.stamp');
const WORKERS = ['server/db/pgliteWorker.mjs'];

export async function ensureServerBuild({ log = console.log } = {}) {
  const hash = hashFiles(INPUTS);
  const copies = WORKERS.map((w) => path.join(root, '.build', path.basename(w)));
  if (fs.existsSync(serverBundle) && copies.every((c) => fs.existsSync(c)) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === hash) return serverBundle;
  const started = Date.now();
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [path.join(root, 'server', 'main.ts')],
    outfile: serverBundle,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  });
  WORKERS.forEach((w, i) => fs.copyFileSync(path.join(root, w), copies[i]));
  fs.writeFileSync(stamp, hash);
  log(`[rcloud] server bundled in ${Date.now() - started} ms`);
  return serverBundle;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await ensureServerBuild();
}
