/**
 * Application errors carry a catalogue code (config/errors.json); the HTTP status
 * and the text come from the catalogue and the request's language, never from the
 * place that throws. `throw new AppError('RIS101')` is all a handler writes.
 */
import { errorCatalogue, type CatalogueEntry } from '../../config/errors';

export { errorTextKey } from '../../config/errors';

const codes = errorCatalogue.codes;

export function catalogueEntry(code: string): CatalogueEntry {
  const entry = codes[code];
  if (!entry) throw new Error(`error code ${code} is not in config/errors.json`);
  return entry;
}

export function allErrorCodes(): string[] {
  return Object.keys(codes);
}

export class AppError extends Error {
  readonly code: string;
  readonly httpStatus: number;
  readonly params?: Record<string, unknown>;
  /** Extra fields for the client (e.g. `field` of a validation failure, who holds a lock). */
  readonly extra?: Record<string, unknown>;

  constructor(code: string, params?: Record<string, unknown>, extra?: Record<string, unknown>) {
    super(code);
    this.code = code;
    this.httpStatus = catalogueEntry(code).http;
    this.params = params;
    this.extra = extra;
  }
}

/**
 * A refusal a workflow guard returns rather than throws (server/workflow/engine.ts): the
 * actions offered on a list's rows are judged by running the guards, which refuse most
 * of them, and an Error created and thrown for each refusal was most of what a page of
 * twenty rows cost. Performing the action turns it into the AppError it names.
 */
export interface Refusal {
  readonly code: string;
  readonly params?: Record<string, unknown>;
  readonly extra?: Record<string, unknown>;
}

export const refusal = (code: string, params?: Record<string, unknown>, extra?: Record<string, unknown>): Refusal => ({ code, params, extra });

export const refusalError = (r: Refusal): AppError => new AppError(r.code, r.params, r.extra);
