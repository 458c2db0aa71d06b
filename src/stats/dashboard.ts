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
  stats?: { view: string; measure: string };
  open: string;
}

export interface ChartDef {
  key: string;
  permission: string;
  view: string;
  values: { dimension?: string; series?: string; measures?: string[] };
}

export const FIGURES: readonly FigureDef[] = dashboard.figures;
export const CHARTS: readonly ChartDef[] = dashboard.charts;

export function visibleFigures(map: PermissionMap | null): FigureDef[] {
  return FIGURES.filter((f) => f.permission.some((p) => can(map, p)));
}

export function visibleCharts(map: PermissionMap | null): ChartDef[] {
  return CHARTS.filter((c) => can(map, c.permission));
}

/** The one key of a figure's source: figures with the same call share its answer. */
export function sourceKey(f: FigureDef): string {
  return f.stats ? `stats:${f.stats.view}` : `call:${f.call?.path}?${new URLSearchParams(f.call?.query ?? {}).toString()}`;
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
