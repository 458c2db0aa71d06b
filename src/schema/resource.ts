/**
 * The resource contract the generic screens speak (react-admin's data provider, keyed
 * by resource): list / detail / save / remove / options on the base path of
 * config/resources.json, always through the one request wrapper. `req` is injectable so
 * tests and the stub run drive the same code with a fake fetcher.
 */
import { request as defaultRequest, type QueryValue, type RequestFn } from '../services/request';
import { RESOURCE_REGISTRY } from '../../config/declared';
import type { ListQuery } from './toColumns';
import type { Option, Scalar } from '../shared/schema/types';

export interface ListReply<T> {
  list: T[];
  total: number;
  /** The caller may change none of the rows (the region's, without region scope): no add, edit, delete or import. */
  readOnly?: boolean;
}

export type Entity = Record<string, unknown> & { id?: number };

export interface ResourceApi {
  /** `kind`: one of the resource's sub-lists (view list.kinds), POST {base}/list/<kind>. */
  list(query: ListQuery, signal?: AbortSignal, kind?: string): Promise<ListReply<Entity>>;
  detail(id: number | string): Promise<Entity>;
  save(entity: Entity): Promise<Entity>;
  remove(id: number | string): Promise<void>;
  options(params?: Record<string, Scalar | undefined>): Promise<Option[]>;
}

const resources: Readonly<Record<string, { base: string }>> = RESOURCE_REGISTRY;

export const resourceNames: string[] = Object.keys(resources).filter((k) => !k.startsWith('$'));

export function resourceBase(resource: string): string {
  const base = resource.startsWith('$') ? undefined : resources[resource]?.base;
  if (!base) throw new Error(`unknown resource ${resource} (config/resources.json)`);
  return base;
}

export function resourceApi(resource: string, req: RequestFn = defaultRequest): ResourceApi {
  const base = resourceBase(resource);
  return {
    list: (query, signal, kind) => req<ListReply<Entity>>(kind ? `${base}/list/${encodeURIComponent(kind)}` : `${base}/list`, { method: 'POST', body: query, signal }),
    detail: (id) => req<Entity>(`${base}/detail/${encodeURIComponent(String(id))}`),
    save: (entity) => req<Entity>(`${base}/save`, { method: 'POST', body: entity }),
    remove: async (id) => {
      await req(`${base}/delete/${encodeURIComponent(String(id))}`, { method: 'POST' });
    },
    options: async (params) => (await req<Option[]>(`${base}/options`, { query: params as Record<string, QueryValue> })) ?? [],
  };
}
