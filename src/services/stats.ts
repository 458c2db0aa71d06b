/** The aggregate calls of the declared statistics views (server/routes/stat.ts). */
import { request } from './request';
import type { StatsAnswer, StatsRequest } from '../stats/model';

export const STATS_BASE = '/api/stat/v1';

export function runStats(name: string, body: StatsRequest, signal?: AbortSignal): Promise<StatsAnswer> {
  return request<StatsAnswer>(`${STATS_BASE}/${name}`, { method: 'POST', body, signal });
}

export function exportStats(name: string, body: StatsRequest): Promise<Blob> {
  return request<Blob>(`${STATS_BASE}/${name}/export`, { method: 'POST', body, responseType: 'blob' });
}
