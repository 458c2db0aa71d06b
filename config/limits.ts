/**
 * The business constants of schemas/limits.json as plain numbers, for code that needs
 * a limit outside a schema (lockout, upload checks, date-range pickers). The schema is
 * the one source; this module only reads its `const` values.
 */
import schema from '../schemas/limits.json';

export type LimitName = keyof typeof schema.properties;

export const LIMITS = Object.freeze(
  Object.fromEntries(Object.entries(schema.properties).map(([name, p]) => [name, p.const])),
) as Readonly<Record<LimitName, number>>;
