/**
 * The walks a server runs in the background, past the request that started them: each noted in
 * that request's log line, its failure told (another walker holding the run, run_state, is
 * expected and not), and all awaited at shutdown.
 */
import { noteRun, type OnWalk } from '../app/index.ts';
import { ErrorCode, isKeelError } from '../core/errors.ts';

export class BackgroundWalks {
  private readonly walking = new Set<Promise<unknown>>();

  constructor(private readonly onError: (e: unknown) => void) {}

  /** Keeps the walk of `runId` until it stops (an OnWalk, for `walk: 'background'` starts). */
  readonly track: OnWalk = (runId, walking) => {
    noteRun(runId);
    const p = walking.catch((e) =>
      isKeelError(e) && e.code === ErrorCode.runState ? undefined : this.onError(e),
    );
    this.walking.add(p);
    p.finally(() => this.walking.delete(p));
  };

  /** Resolves when every walk tracked so far has stopped. */
  async settled(): Promise<void> {
    while (this.walking.size > 0) await Promise.allSettled([...this.walking]);
  }
}
