/**
 * Live work in hand in this process (events being routed, runs started, approvals walked on), so
 * background work that is only evidence — shadow runs — yields to it: `busy` until the process has
 * had none for a quiet while. Wall-clock time, operational only; nothing of it is recorded.
 */
export class LiveActivity {
  private inFlight = 0;
  private lastEnd = Number.NEGATIVE_INFINITY;

  constructor(private readonly clock: () => number) {}

  /** Runs `fn` as live work: busy from its start until a quiet while after its end. */
  async around<T>(fn: () => Promise<T>): Promise<T> {
    this.inFlight++;
    try {
      return await fn();
    } finally {
      this.inFlight--;
      this.lastEnd = this.clock();
    }
  }

  /** True while live work runs, and for `quietMs` after the last of it ended. */
  busy(quietMs: number): boolean {
    return this.inFlight > 0 || this.clock() - this.lastEnd < quietMs;
  }
}
