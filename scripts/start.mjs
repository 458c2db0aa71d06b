// `npm start`: build the UI and bundle the server when they are not current, then
// run the platform in this process (one process: UI, API, DICOM).
import { createRequire } from 'node:module';
import { ensureUiBuild } from './ui-build.mjs';
import { ensureServerBuild } from './server-build.mjs';

if (process.env.SKIP_UI_BUILD !== 'true') ensureUiBuild();
const bundle = await ensureServerBuild();
process.setSourceMapsEnabled(true);
createRequire(import.meta.url)(bundle);
