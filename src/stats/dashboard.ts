/**
 * The home page's declaration (config/dashboard.json) as pure functions: which
 * figures and charts a user sees (by permission key), the calls that feed them (one
 * per distinct call), a figure's value from its answer and its list's address.
 */
import dashboard from '../../config/dashboard.json';
import { can, type PermissionMap } from '../session/access';
import { dayText } from '../shared/dateRanges';

export interface FigureDef {
  key: string;
  permission: string[];
  call?: { path: string; query?: Record<string, string> };
  value?: string;
  /** A measure's total of a statistics view over today, or over a quick range of the view. */
  stats?: { view: string; measure: string; range?: string };
  open: string;
}

export interface ChartDef {
  key: string;
  permission: string;
  view: string;
  values: { dimension?: string; series?: string; measures?: string[] };
}

export const FIGURES: readonly FigureDef[] = dashboard.figures as FigureDef[];
export const CHARTS: readonly ChartDef[] = dashboard.charts;

export function visibleFigures(map: PermissionMap | null): FigureDef[] {
  return FIGURES.filter((f) => f.permission.some((p) => can(map, p)));
}

export function visibleCharts(map: PermissionMap | null): ChartDef[] {
  return CHARTS.filter((c) => can(map, c.permission));
}

/** The one key of a figure's source: figures with the same call (or the same view and range) share its answer. */
export function sourceKey(f: FigureDef): string {
  return f.stats ? `stats:${f.stats.view}:${f.stats.range ?? 'today'}` : `call:${f.call?.path}?${new URLSearchParams(f.call?.query ?? {}).toString()}`;
}

/** The measures each statistics source is asked for: those its figures show, so one call serves them all. */
export function measuresOf(figures: FigureDef[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of figures) {
    if (!f.stats) continue;
    const key = sourceKey(f);
    out.set(key, [...new Set([...(out.get(key) ?? []), f.stats.measure])]);
  }
  return out;
}

/** A dotted path's number in an answer (undefined when absent). */
export function valueAt(data: unknown, path: string): number | undefined {
  const v = path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), data);
  return typeof v === 'number' ? v : undefined;
}

/** The figure's list address, {today} as today's first,last days. */
export function figureUrl(f: FigureDef, now: Date = new Date()): string {
  const today = dayText(now);
  return f.open.replace('{today}', `${today},${today}`);
}
