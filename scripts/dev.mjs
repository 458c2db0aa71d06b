// `npm run dev`: the API server with reload on change (tsx watch, port 8000) and the
// umi dev server with hot reload (port 8001) proxying /api and /dicom-web to it.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { root } from './ui-build.mjs';

const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const children = [
  spawn(bin('tsx'), ['watch', '--clear-screen=false', 'server/main.ts'], { cwd: root, stdio: 'inherit' }),
  spawn(bin('umi'), ['dev'], { cwd: root, stdio: 'inherit', env: { ...process.env, PORT: process.env.UI_PORT || '8001', API_PORT: process.env.PORT || '8000' } }),
];
console.log(`[rcloud] dev: open http://localhost:${process.env.UI_PORT || 8001} (API on ${process.env.PORT || 8000})`);
const stop = () => { for (const c of children) c.kill('SIGTERM'); };
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
for (const c of children) c.on('exit', (code) => { if (code) { stop(); process.exitCode = code; } });
