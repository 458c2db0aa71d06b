/**
 * What to keep when a test fails: each open browser session and platform registers
 * itself here while it is open, and the test environment (tests/support/environment.js)
 * asks every registered source to write its part (screenshots, the page's console, the
 * server log) into the failed test's folder under test-output/.
 */

export interface FailureSource {
  /** Writes what this source can tell about the failure into `dir` (which exists); must not throw. */
  keep(dir: string): Promise<void>;
}

/** The key the environment reads on the test file's global. */
const SOURCES = Symbol.for('rcloud.failureSources');

function sources(): Set<FailureSource> {
  const g = globalThis as unknown as Record<symbol, Set<FailureSource> | undefined>;
  return (g[SOURCES] ??= new Set());
}

/** Registers `source` until the function it returns is called (on close). */
export function keepOnFailure(source: FailureSource): () => void {
  sources().add(source);
  return () => sources().delete(source);
}

/** Lines of a log kept in memory, the last `limit` of them: a failure needs the end. */
export class LogTail {
  private lines: string[] = [];
  constructor(private readonly limit = 5000) {}
  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.limit) this.lines.splice(0, this.lines.length - this.limit);
  }
  text(): string {
    return this.lines.join('\n');
  }
}
