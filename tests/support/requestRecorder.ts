/**
 * A stand-in for the one request function (src/services/request.ts) in unit tests of
 * pure code that calls through it: records each call and answers the same value.
 */
import type { RequestFn, RequestOptions } from '../../src/services/request';

export function recorder(answer: unknown = null) {
  const calls: Array<[string, RequestOptions | undefined]> = [];
  const req = (async (path: string, options?: RequestOptions) => {
    calls.push([path, options]);
    return answer;
  }) as RequestFn;
  return { calls, req };
}
