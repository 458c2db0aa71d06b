/**
 * The loop of a background worker on a database queue (exports, regional sends): claim
 * a job, run it, claim the next; when none is due, wait for the poll interval or a kick
 * (a job was just queued). Stopping ends the wait at once and lets the job under way
 * see `stopping` and hand itself back. What a job is and how it is claimed is the
 * worker's; this touches nothing itself.
 */
export interface JobWork<J> {
  /** The next job for this worker, or none. */
  claim(): Promise<J | undefined>;
  run(job: J): Promise<void>;
}

export class JobLoop<J> {
  private stopped = true;
  private wake?: () => void;
  private loop?: Promise<void>;

  constructor(
    private readonly name: string,
    private readonly work: JobWork<J>,
    private readonly pollMs: number,
    private readonly log?: { error(obj: unknown, msg?: string): void },
  ) {}

  /** True once stop() was called: a job under way should hand itself back. */
  get stopping(): boolean {
    return this.stopped;
  }

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
        job = await this.work.claim();
      } catch (e) {
        if (!this.stopped) this.log?.error({ err: e }, `${this.name}: claiming a job failed`);
      }
      if (job) {
        await this.work.run(job).catch((e) => this.log?.error({ err: e }, `${this.name}: a job failed unexpectedly`));
        continue;
      }
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
