/**
 * PostgreSQL errors that a request's own values cause, as catalogue failures (a 4xx),
 * for the one error handler: a value the schema let through but the database refuses
 * (a number past its column, a malformed date, a NUL character, a reference to no row,
 * a row still referred to) is the caller's fault wherever the statement ran, so no
 * route needs a guard of its own. PGlite and pg both put the SQLSTATE in `code` and
 * the constraint and table names beside it. Anything else stays a server fault.
 */
import { RESOURCE_REGISTRY as registry } from '../../config/declared';
import { AppError } from './errors';

interface DatabaseError {
  code?: unknown;
  constraint?: unknown;
  table?: unknown;
  message?: unknown;
  detail?: unknown;
}

/** The generic codes, where no resource of the registry says better. */
const IN_USE = 'BDT106';
const EXISTS = 'BDT003';

/** SQLSTATEs of a value the column's type refuses: bad parameters, naming the column when the database does. */
const BAD_VALUE = new Set([
  '22P02', // invalid text representation ("abc" or 1e308 as an integer)
  '22003', // numeric value out of range (2^31 in an integer column)
  '22007', // invalid datetime format
  '22008', // datetime field overflow (month 13)
  '22001', // string data right truncation (longer than the column)
  '22021', // character not in repertoire (NUL)
  '22P05', // untranslatable character
  '23502', // not-null violation (a required value missing)
]);

const snakeToCamel = (s: string) => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** table name → its resource's table declaration (unique constraints, in-use codes). */
interface TableDecl {
  name: string;
  unique?: Record<string, string>;
  inUse?: Array<{ table: string; code: string }>;
}
const DECLS: TableDecl[] = Object.entries(registry)
  .filter(([k]) => !k.startsWith('$'))
  .flatMap(([, r]) => (r as { table?: TableDecl }).table ?? []);
const TABLES = new Map(DECLS.map((t) => [t.name, t]));
const UNIQUE = new Map(DECLS.flatMap((t) => Object.entries(t.unique ?? {})));

/** The catalogue failure for a database error a request caused, or undefined for a server fault. */
export function databaseFailure(error: unknown): AppError | undefined {
  const e = error as DatabaseError;
  if (typeof e?.code !== 'string' || !/^[0-9A-Z]{5}$/.test(e.code)) return undefined;
  const message = typeof e.message === 'string' ? e.message : '';
  if (BAD_VALUE.has(e.code)) {
    // not-null names the column in `column` (pg) or in the message; the others rarely name one.
    const column = (e as { column?: unknown }).column ?? /column "([a-z0-9_]+)"/.exec(message)?.[1];
    const field = typeof column === 'string' ? snakeToCamel(column) : undefined;
    return new AppError('UAA421', { detailKey: e.code === '23502' ? 'validation.required' : 'validation.invalid', field }, field ? { field } : {});
  }
  if (e.code === '23503') {
    // "update or delete on table "device" violates … on table "exam"": a row still referred to.
    const deleted = /^update or delete on table "([a-z0-9_]+)"/.exec(message)?.[1];
    if (deleted) {
      const refs = TABLES.get(deleted)?.inUse ?? [];
      const code = (refs.find((r) => r.table === e.table) ?? refs[0])?.code ?? IN_USE;
      return new AppError(code);
    }
    // "insert or update on table …", detail "Key (device_id)=(5) is not present": a reference to no row.
    const column = /Key \(([a-z0-9_]+)\)/.exec(typeof e.detail === 'string' ? e.detail : '')?.[1];
    const field = column ? snakeToCamel(column) : undefined;
    return new AppError('UAA421', { detailKey: 'validation.select', field }, field ? { field } : {});
  }
  if (e.code === '23505') {
    const constraint = typeof e.constraint === 'string' ? e.constraint : '';
    return new AppError(UNIQUE.get(constraint) ?? EXISTS);
  }
  return undefined;
}
