/**
 * Where the viewer opens (spec sections 2, 3 and 9; issue #7 "Screens"), from the
 * user's image-viewer settings (commonSetting.viewConfig): single screen → this tab;
 * dual screen with "new window" → viewer windows, placed on up to viewerScreensMax
 * other screens through the Window Management API when the user has allowed it,
 * else one viewerFallbackWidth x viewerFallbackHeight window. A comparison spread over
 * several screens gives each window its share of the studies. No Cornerstone here: the
 * exam list and the image record load this, not the viewer.
 */
import { LIMITS } from '../../config/limits';
import type { ViewConfig } from './api';

export type ViewerTarget = { studyUids: string[]; compare: boolean } | { examId: number };

/** The /viewer address of a target: ?exam=, ?studies= (side by side with `compare`) or ?compare= (validated comparison). */
export function viewerPath(target: ViewerTarget, side = false): string {
  const q = new URLSearchParams();
  if ('examId' in target) q.set('exam', String(target.examId));
  else if (target.compare && !side) q.set('compare', target.studyUids.join(','));
  else {
    q.set('studies', target.studyUids.join(','));
    if (side || target.compare) q.set('side', '1');
  }
  return `/viewer?${q.toString()}`;
}

/** The viewer opens in other windows (dual screen with "new window"), else in this tab. */
export function opensWindow(config: ViewConfig | undefined): boolean {
  const model = config?.openModel ?? 'double';
  const options = config?.doubleConfig ?? ['newWindow', 'auto'];
  return model === 'double' && options.includes('newWindow');
}

/** Images load as the viewer opens (single screen always; dual screen when "auto" is set). */
export function autoLoads(config: ViewConfig | undefined): boolean {
  const model = config?.openModel ?? 'double';
  return model === 'single' || (config?.doubleConfig ?? ['newWindow', 'auto']).includes('auto');
}

/** Splits studies into `parts` runs of nearly equal length, in order. */
export function share<T>(items: T[], parts: number): T[][] {
  const n = Math.max(1, Math.min(parts, items.length));
  const out: T[][] = [];
  let start = 0;
  for (let k = 0; k < n; k++) {
    const size = Math.ceil((items.length - start) / (n - k));
    out.push(items.slice(start, start + size));
    start += size;
  }
  return out;
}

export interface ScreenBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface ScreenDetailed {
  availLeft: number;
  availTop: number;
  availWidth: number;
  availHeight: number;
}
export interface ScreenDetails {
  screens: ScreenDetailed[];
  currentScreen: ScreenDetailed;
}
type WindowWithScreens = Window & { getScreenDetails?: () => Promise<ScreenDetails> };

/** Has the user let this site place windows on their screens? (Never asks: asking is the settings dialog's.) */
async function screensAllowed(): Promise<boolean> {
  if (!(window as WindowWithScreens).getScreenDetails || !navigator.permissions) return false;
  try {
    const status = await navigator.permissions.query({ name: 'window-management' as PermissionName });
    return status.state === 'granted';
  } catch {
    return false;
  }
}

/** Asks for the Window Management permission (from a click in the settings); true when granted. */
export async function requestScreens(): Promise<boolean> {
  const w = window as WindowWithScreens;
  if (!w.getScreenDetails) return false;
  try {
    await w.getScreenDetails();
    return true;
  } catch {
    return false;
  }
}

/** Screens other than the current one, at most viewerScreensMax, as window boxes. */
export function pickScreens(details: ScreenDetails): ScreenBox[] {
  return details.screens
    .filter((s) => s !== details.currentScreen)
    .slice(0, LIMITS.viewerScreensMax)
    .map((s) => ({ left: s.availLeft, top: s.availTop, width: s.availWidth, height: s.availHeight }));
}

/** Screens other than this one; none when there is no other or the API is not allowed. */
export async function otherScreens(): Promise<ScreenBox[]> {
  if (!(await screensAllowed())) return [];
  try {
    return pickScreens(await (window as WindowWithScreens).getScreenDetails!());
  } catch {
    return [];
  }
}

function features(box: ScreenBox): string {
  return `popup,left=${box.left},top=${box.top},width=${box.width},height=${box.height}`;
}

export const FALLBACK_BOX: ScreenBox = { left: 0, top: 0, width: LIMITS.viewerFallbackWidth, height: LIMITS.viewerFallbackHeight };

/** What launching needs of the browser (a test gives its own). */
export interface LaunchEnv {
  open(url: string, name: string, features: string): Window | null;
  otherScreens(): Promise<ScreenBox[]>;
}

const browserEnv: LaunchEnv = { open: (url, name, f) => window.open(url, name, f), otherScreens };

/**
 * Opens the viewer for the target as the settings say. `navigate` goes there in this
 * tab (single screen, or when the browser blocked the window). Returns the windows opened.
 */
export async function launchViewer(
  target: ViewerTarget,
  config: ViewConfig | undefined,
  navigate: (path: string) => void,
  env: LaunchEnv = browserEnv,
): Promise<Window[]> {
  if (!opensWindow(config)) {
    navigate(viewerPath(target));
    return [];
  }
  const screens = await env.otherScreens();
  const opened: Window[] = [];
  if (screens.length > 1 && !('examId' in target) && target.studyUids.length > 1) {
    const parts = share(target.studyUids, screens.length);
    parts.forEach((uids, k) => {
      const w = env.open(viewerPath({ studyUids: uids, compare: target.compare }, parts.length > 1), `rcloud-viewer-${k}`, features(screens[k]));
      if (w) opened.push(w);
    });
  } else {
    // Named: opening again reuses the viewer window instead of piling up new ones.
    const w = env.open(viewerPath(target), 'rcloud-viewer-0', features(screens[0] ?? FALLBACK_BOX));
    if (w) opened.push(w);
  }
  if (!opened.length) navigate(viewerPath(target));
  return opened;
}
