/** GET /api/health: which database the server runs on, its version and uptime. */
import { request } from './request';

export interface Health {
  db: 'pglite' | 'postgres' | string;
  version: string;
  /** Seconds. */
  uptime: number;
}

export function getHealth(signal?: AbortSignal): Promise<Health> {
  return request<Health>('/api/health', { signal });
}
