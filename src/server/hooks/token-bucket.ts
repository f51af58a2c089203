/**
 * A token bucket: `burst` tokens at most, refilled at `perSecond`, one taken per accepted call.
 * In memory, per process (each `keel serve` process limits what it is sent); `now` is handed in
 * so a test can drive time. A refusal says how long until a token is back (Retry-After).
 */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.at = now;
  }

  /** Takes a token at `now` (ms): 0 when taken, else the whole seconds to wait before trying again. */
  take(now: number): number {
    const elapsed = Math.max(0, now - this.at) / 1000;
    this.tokens = Math.min(this.burst, this.tokens + elapsed * this.perSecond);
    this.at = Math.max(this.at, now);
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - this.tokens) / this.perSecond));
  }
}
