// Before any test: the system packages the chosen tests drive are there (installed
// when it may, else it stops at once naming the command: scripts/system-packages.mjs).
// Then builds the UI once before process and browser tests (they serve dist/ as
// `npm start` does); a run of only unit or API tests skips the build.
import { ensureSystemPackages } from '../../scripts/system-packages.mjs';
import { ensureUiBuild } from '../../scripts/ui-build.mjs';

export default async function globalSetup(globalConfig) {
  const patterns = [globalConfig.testPathPattern ?? '', ...(globalConfig.testPathPatterns?.patterns ?? [])].join(' ');
  try {
    ensureSystemPackages(patterns);
  } catch (e) {
    // One line that says what to do, not a stack (and the summary line CI reads).
    console.error(`\n[rcloud] ${e.message}`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
  const needsUi = patterns.trim() === '' || /browser|e2e/.test(patterns);
  if (needsUi) ensureUiBuild();
}
