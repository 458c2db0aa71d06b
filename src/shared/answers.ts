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
