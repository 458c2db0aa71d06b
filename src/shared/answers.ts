/**
 * The shapes of answers both sides read, declared once: the server builds them, the
 * client's services return them. Pure types.
 */

/** A file service purpose's policy (GET /api/file/v1/policy): what an upload may be. */
export interface FilePolicy {
  purpose: string;
  ownerKind: string;
  types: string[];
  maxBytes: number;
  chunkSize: number;
  pixels?: { width: number; height: number };
}

/** A kept file as the file service describes it. */
export interface FileMeta {
  id: string;
  purpose: string;
  ownerKind: string;
  ownerId: number;
  name: string;
  type: string;
  size: number;
  sha256: string;
  createdAt: string;
}

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

/** Where an upload goes: its purpose, the owning record and the file's name. */
export interface UploadTarget {
  purpose: string;
  ownerId: number;
  name: string;
}

/** A chunked upload's state (which chunks arrived), so a broken upload resumes. */
export interface UploadStatus {
  id: string;
  chunkSize: number;
  chunkCount: number;
  /** Chunk numbers that arrived, ascending. */
  received: number[];
  complete: boolean;
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
