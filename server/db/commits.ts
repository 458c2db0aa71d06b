/**
 * Who is told what this instance committed (Db.observeCommits): a statement run
 * outside a transaction once it has run, a transaction's statements once COMMIT has
 * returned, never what was rolled back. For in-process caches of rows, which must
 * drop what a write changed before the writer's caller sees its reply.
 */
import type { CommitObserver, Queryable, QueryOptions } from './types';

export class Commits {
  private readonly observers = new Set<CommitObserver>();

  add(observer: CommitObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  get active(): boolean {
    return this.observers.size > 0;
  }

  /** Statements of a transaction, collected as they succeed; undefined when nobody observes (no cost then). */
  recorder(): string[] | undefined {
    return this.active ? [] : undefined;
  }

  committed(statements: readonly string[] | undefined): void {
    if (!statements?.length) return;
    for (const observer of this.observers) observer(statements);
  }

  /** `q` with each successful statement's text appended to `into`. */
  static recording(q: Queryable, into: string[] | undefined): Queryable {
    if (!into) return q;
    return {
      async query<T>(sql: string, params?: unknown[], options?: QueryOptions) {
        const r = await q.query<T>(sql, params, options);
        into.push(sql);
        return r;
      },
    };
  }
}
