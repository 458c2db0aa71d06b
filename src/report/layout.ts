/**
 * The report page as a reading room (issue #17): how its width is split between the
 * viewer, the report and the side tabs, and which of the viewer's panels show, as the
 * user left them. Kept as the user's screen setting of module "reportDetail" on the
 * server (`panes`), so it follows the user to another machine. Pure: a stored value is
 * checked before it is used, and anything odd falls back to the defaults.
 */
import type { ScreenSetting } from '../shared/generated/entities/screenSetting';
import type { ViewerPanels } from '../viewer/types';

export const REPORT_PAGE_MODULE = 'reportDetail';

export interface ReadingLayout {
  /** Viewer, report, side tabs: shares of the width in percent. */
  sizes: [number, number, number];
  panels: ViewerPanels;
}

/** The viewer gets the larger share (over half the width: at 1366 px about 750 px), the measurements folded. */
export const DEFAULT_LAYOUT: ReadingLayout = { sizes: [55, 27, 18], panels: { series: true, measurements: false } };

/** The stored layout where it makes sense (three shares adding up to about 100, the report pane not folded), else the defaults, part by part. */
export function readingLayout(stored: ScreenSetting['panes'] | null | undefined): ReadingLayout {
  const sizes = stored?.sizes;
  const total = sizes?.reduce((a, b) => a + b, 0) ?? 0;
  const usable = sizes?.length === 3 && Math.abs(total - 100) <= 1 && sizes[1] > 0;
  return {
    sizes: usable ? [sizes[0], sizes[1], sizes[2]] : DEFAULT_LAYOUT.sizes,
    panels: {
      series: stored?.series ?? DEFAULT_LAYOUT.panels.series,
      measurements: stored?.measurements ?? DEFAULT_LAYOUT.panels.measurements,
    },
  };
}

/** Pane widths in pixels (the splitter's report) as shares in percent, to a tenth, adding up to 100. */
export function sharesOf(pixels: readonly number[]): number[] {
  const total = pixels.reduce((a, b) => a + b, 0);
  if (total <= 0) return pixels.map(() => 0);
  const shares = pixels.map((p) => Math.round((1000 * p) / total) / 10);
  // Rounding may leave a tenth over or under: the widest pane takes it.
  const rest = Math.round((100 - shares.reduce((a, b) => a + b, 0)) * 10) / 10;
  const widest = shares.indexOf(Math.max(...shares));
  shares[widest] = Math.round((shares[widest] + rest) * 10) / 10;
  return shares;
}

/** The layout as the setting's `panes` (the screen setting's save merges it into the rest). */
export function panesOf(layout: ReadingLayout): NonNullable<ScreenSetting['panes']> {
  return { sizes: [...layout.sizes], series: layout.panels.series, measurements: layout.panels.measurements };
}
