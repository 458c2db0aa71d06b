/**
 * The instance's background jobs: regional sends, exports, the overdue sweep, the audit
 * flush, the video relay. They start once the database is migrated, which onReady is
 * not: the app is made ready beside the migrations (its schemas compile meanwhile), and a
 * job started from an onReady hook met "relation does not exist" on a first start. Each
 * job stops in its plugin's close hook.
 */
export class Background {
  private jobs: Array<{ name: string; start: () => unknown }> = [];
  private started = false;

  add(name: string, start: () => unknown): void {
    if (this.started) throw new Error(`background job "${name}" added after the jobs started`);
    this.jobs.push({ name, start });
  }

  /** Once, after the migrations (server/start.ts). */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    for (const job of this.jobs) await job.start();
  }
}
