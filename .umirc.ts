/**
 * umi build and dev configuration. Routes come from config/routes.json through
 * src/routes/table.ts, the same source the sidebar reads. The route loading component
 * is umi's convention file src/loading.tsx (umi 4 has no `loading` config key).
 */
import { defineConfig } from 'umi';
import { defaultLanguage, translate } from './locales';
import { buildUmiRoutes } from './src/routes/table';

// The API server of `npm run dev` (scripts/dev.mjs passes its port).
const apiTarget = `http://127.0.0.1:${process.env.API_PORT || 8000}`;

export default defineConfig({
  // The page title before the app starts; src/app.tsx keeps it per route and language.
  title: translate(defaultLanguage, 'common.appName'),
  history: { type: 'browser' },
  // scripts/ui-build.mjs builds into a directory of its choosing through UMI_OUTPUT_PATH.
  outputPath: process.env.UMI_OUTPUT_PATH || 'dist',
  hash: true,
  // esbuild's minifier puts its helpers at the top level of each async chunk, where two
  // chunks can claim one name (umi's esbuildHelperChecker then stops the build); a
  // chunk wrapped in an IIFE keeps its helpers to itself.
  esbuildMinifyIIFE: true,
  favicons: ['/favicon.svg'],
  routes: buildUmiRoutes(),
  // The layout is chosen per route in config/routes.json, not by src/layouts/index.tsx.
  conventionLayout: false,
  define: {
    'process.env.API_BASE': process.env.API_BASE ?? '',
  },
  // Dev server: `PORT=8001 umi dev` (scripts/dev.mjs); the API server listens on 8000.
  proxy: {
    '/api': { target: apiTarget, changeOrigin: true },
    '/dicom-web': { target: apiTarget, changeOrigin: true },
  },
  // mock/ holds the server's seeded demo-data generators, not umi mock routes: the dev
  // server must proxy /api to the real server instead.
  mock: false,
  // MFSU caches pre-built deps under node_modules/.cache and has bitten builds in CI
  // containers; plain webpack is fast enough for this app.
  mfsu: false,
});
