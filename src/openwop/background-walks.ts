/**
 * The walks a server runs in the background, past the request that started them: each noted in
 * that request's log line (by the host, which is handed the request's notes), its failure told
 * (another walker holding the run, run_state, is expected and not), and all awaited at shutdown.
 */
import { ErrorCode, isKeelError } from '../core/errors.ts';

export class BackgroundWalks {
  private readonly walking = new Set<Promise<unknown>>();

  constructor(private readonly onError: (e: unknown) => void) {}

  /** Keeps a walk until it stops. */
  track(walking: Promise<unknown>): void {
    const p = walking.catch((e) =>
      isKeelError(e) && e.code === ErrorCode.runState ? undefined : this.onError(e),
    );
    this.walking.add(p);
    p.finally(() => this.walking.delete(p));
  }

  /** Resolves when every walk tracked so far has stopped. */
  async settled(): Promise<void> {
    while (this.walking.size > 0) await Promise.allSettled([...this.walking]);
  }
}
