// Builds the UI once before process and browser tests (they serve dist/ as
// `npm start` does); a run of only unit or API tests skips the build.
import { ensureUiBuild } from '../../scripts/ui-build.mjs';

export default async function globalSetup(globalConfig) {
  const patterns = [globalConfig.testPathPattern ?? '', ...(globalConfig.testPathPatterns?.patterns ?? [])].join(' ');
  const needsUi = patterns.trim() === '' || /browser|e2e/.test(patterns);
  if (needsUi) ensureUiBuild();
}
