/**
 * A required time-range filter of a list or an export ([from, to) as two instants):
 * present, well formed, in order and, where a limit applies, not longer than it.
 * Refused as UAA421 naming the field by its label, as the form names it.
 */
import type { FastifyRequest } from 'fastify';
import { AppError } from './errors';
import { t } from './http';

const DAY_MS = 86_400_000;

export function requireRange(request: FastifyRequest, filters: Record<string, unknown>, entity: string, field: string, maxDays?: number): void {
  const raw = filters[field];
  const label = t(request, `entity.${entity}.field.${field}`);
  const refuse = (key: string, params: Record<string, unknown> = {}) => {
    const detail = t(request, key, { field: label, ...params });
    return new AppError('UAA421', { detail }, { field, detail });
  };
  // Missing, it is asked for as a choice ("select the created time"), the words a range picker's form uses.
  if (!Array.isArray(raw) || raw.length !== 2 || raw.some((v) => typeof v !== 'string' || v === '')) throw refuse('validation.select');
  const [from, to] = (raw as string[]).map((v) => new Date(v).getTime());
  if (Number.isNaN(from) || Number.isNaN(to) || to <= from) throw refuse('validation.invalid');
  // The range is whole local days [first 00:00, day after last 00:00); a daylight-saving
  // change inside it adds an hour, which is still the same number of days.
  if (maxDays !== undefined && to - from > maxDays * DAY_MS + 3_600_000) throw refuse('validation.maxRangeDays', { limit: maxDays });
}
