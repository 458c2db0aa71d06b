/**
 * Typed access to the error catalogue (errors.json), shared by the server (status
 * and text of a failure) and the client (how a reply is handled). Data stays in the
 * JSON; this file only reads it.
 */
import catalogue from './errors.json';

export type Handling = 'message' | 'reload' | 'relogin' | 'silent' | 'common';

export interface CatalogueEntry {
  http: number;
  handling: Handling;
  /** Shared text key when several codes say the same; else the text is `error.<CODE>`. */
  key?: string;
}

export interface ErrorCatalogue {
  codes: Record<string, CatalogueEntry>;
}

export const errorCatalogue = catalogue as ErrorCatalogue;

/** The locale key of a code's text: its own `key`, else `error.<CODE>`. */
export function errorTextKey(code: string, from: ErrorCatalogue = errorCatalogue): string {
  return from.codes[code]?.key ?? `error.${code}`;
}
