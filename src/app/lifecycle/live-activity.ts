/**
 * Live work in hand in this process (events being routed, runs started, approvals walked on), so
 * background work that is only evidence — shadow runs — yields to it: `busy` until the process has
 * had none for a quiet while. Wall-clock time, operational only; nothing of it is recorded. The
 * services that do live work take it, and the waking of shadow work when a run ends, as functions.
 */

/** Runs `fn` as live work (LiveActivity.around): background shadow work yields to it while it is in hand. */
export type LiveWork = <T>(fn: () => Promise<T>) => Promise<T>;

/**
 * A run that waited (for a person, a reconciliation, a resume) and has ended here: the shadow
 * work beside it, which waits for it to end, is woken. Never fails the caller; returns the run.
 */
export type RunEnded = <R extends { runId: string; status: string }>(tenant: string, r: R) => Promise<R>;
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
