/**
 * Where the project's files are, found once by walking up from this module to the
 * folder with package.json, so the server runs the same from its TypeScript sources
 * (tsx, tests) and from the bundle `npm start` builds into .build/.
 */
import fs from 'node:fs';
import path from 'node:path';

function findRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'server'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no project root above ${start}`);
    dir = up;
  }
}

export const ROOT = findRoot(__dirname);
export const MIGRATIONS_DIR = path.join(ROOT, 'server', 'migrations');
export const SCHEMAS_DIR = path.join(ROOT, 'schemas');
