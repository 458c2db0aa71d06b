/**
 * The loop of a background worker on a database queue (exports, regional sends): claim
 * a job, run it, claim the next; when none is due, wait for the poll interval or a kick
 * (a job was just queued). Stopping ends the wait at once and lets the job under way
 * see `stopping` and hand itself back. What a job is and how it is claimed is the
 * worker's; this touches nothing itself.
 */
export abstract class QueueWorker<J> {
  /** True until start() and once stop() was called: a job under way should hand itself back. */
  protected stopped = true;
  private wake?: () => void;
  private loop?: Promise<void>;

  constructor(
    private readonly name: string,
    private readonly pollMs: number,
    private readonly log?: { error(obj: unknown, msg?: string): void },
  ) {}

  /** The next job for this worker, or none. */
  abstract claim(): Promise<J | undefined>;

  protected abstract execute(job: J): Promise<void>;

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
  }

  /** A job was queued: look now rather than at the next poll. */
  kick(): void {
    this.wake?.();
  }

  /** Stops looking for jobs and waits for the job under way to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.kick();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let job: J | undefined;
      try {
        job = await this.claim();
      } catch (e) {
        if (!this.stopped) this.log?.error({ err: e }, `${this.name}: claiming a job failed`);
      }
      if (job) {
        await this.execute(job).catch((e) => this.log?.error({ err: e }, `${this.name}: a job failed unexpectedly`));
        continue;
      }
      // Stopped while claiming (no wait to end then): stop now, not after a whole poll interval.
      if (this.stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.pollMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }
}
