/**
 * The shapes of answers both sides read, declared once: the server builds them, the
 * client's services return them. Pure types.
 */

/** One group of a statistics answer (POST /api/stat/v1/<view>). */
export interface StatsRow {
  key: string | number | null;
  label: string;
  seriesKey?: string | number | null;
  seriesLabel?: string;
  values: Record<string, number | null>;
}

/** A statistics view's answer: its groups and the totals over them. */
export interface StatsAnswer {
  dimension: string;
  series?: string;
  measures: string[];
  rows: StatsRow[];
  totals: Record<string, number | null>;
}

/** The body of POST /api/stat/v1/<view>. */
export interface StatsQuery {
  /** [from, to) instants (ISO). */
  range: [string, string];
  /** The grouping; default the view's first dimension. */
  dimension?: string;
  /** A second grouping (the chart's series), one of the view's `series`. */
  series?: string;
  /** Measures to compute; default all the view declares. */
  measures?: string[];
  /** Filters of the view: a value or a list of values each. */
  filters?: Record<string, unknown>;
}
