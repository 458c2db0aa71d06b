// The Debian packages the tests drive (TESTING.md): checked before any test runs, so a
// machine without them fails at once with the command that installs them, not with a
// wall of failures. As root with apt-get, they are installed (RCLOUD_NO_APT=1 forbids it).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';

/** What a test layer needs: a file that shows the package is there, and the package. */
export const SYSTEM_PACKAGES = [
  { pkg: 'chromium', present: () => fs.existsSync(process.env.CHROMIUM_PATH || '/usr/bin/chromium'), layers: /browser|e2e/ },
  { pkg: 'dcmtk', present: () => onPath('storescu'), layers: /dicom|pacs|e2e/ },
  { pkg: 'orthanc', present: () => fs.existsSync('/usr/sbin/Orthanc'), layers: /dicom|pacs|e2e/ },
  { pkg: 'orthanc-dicomweb', present: () => fs.existsSync('/usr/share/orthanc/plugins/libOrthancDicomWeb.so'), layers: /dicom|pacs|e2e/ },
  // The video room's browser test gives its peers non-loopback addresses on a veth pair.
  { pkg: 'iproute2', present: () => onPath('ip'), layers: /browser/ },
  // The video room's media server (its SFU path): the API and browser tests start one of their own.
  { pkg: 'janus', present: () => fs.existsSync(process.env.JANUS_BIN || '/usr/bin/janus'), layers: /api|browser|janus/ },
  // Chinese glyphs in the screenshots the browser tests keep.
  { pkg: 'fonts-wqy-microhei', present: () => fs.existsSync('/usr/share/fonts/truetype/wqy/wqy-microhei.ttc'), layers: /browser|e2e/ },
];

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** The packages missing for a run of `patterns` (empty: every layer). */
export function missingPackages(patterns) {
  const all = patterns.trim() === '';
  return SYSTEM_PACKAGES.filter((p) => (all || p.layers.test(patterns)) && !p.present()).map((p) => p.pkg);
}

/** Installs what is missing when it may, else throws naming the command. */
export function ensureSystemPackages(patterns) {
  const missing = missingPackages(patterns);
  if (!missing.length) return;
  const command = `apt-get install -y ${missing.join(' ')}`;
  const mayInstall = process.getuid?.() === 0 && onPath('apt-get') && process.env.RCLOUD_NO_APT !== '1';
  if (mayInstall) {
    console.log(`[rcloud] installing the system packages the tests drive: ${missing.join(', ')}`);
    try {
      execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
      execFileSync('apt-get', ['install', '-y', '-qq', ...missing], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    } catch {
      throw new Error(`the tests need ${missing.join(', ')}; installing them failed: run \`sudo ${command}\``);
    }
    const still = missingPackages(patterns);
    if (!still.length) return;
    throw new Error(`the tests need ${still.join(', ')}, still missing after apt-get: run \`sudo apt-get install -y ${still.join(' ')}\``);
  }
  throw new Error(`the tests need the Debian packages ${missing.join(', ')}: run \`sudo ${command}\` (or run the tests as root to have them installed)`);
}
