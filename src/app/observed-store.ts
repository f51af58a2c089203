/**
 * A store whose commits are watched: after each append commits, the observer is told what was
 * committed (the request), for trace export and metrics. Installed only when one of them is
 * configured, so a Keel without them pays nothing. An observer that throws is ignored: watching
 * a commit never fails it.
 */
import type { AppendRequest, ClaimedRun, ClaimScope, Store } from '../ports/index.ts';

export interface CommitObserver {
  /** Before an append that closes an approval (to read when it was opened); may be absent. */
  beforeClose?(req: AppendRequest): Promise<void>;
  committed(req: AppendRequest): void;
  claimed?(owner: string, scope: ClaimScope | undefined, runs: readonly ClaimedRun[]): void;
}

export function observedStore(store: Store, observers: readonly CommitObserver[]): Store {
  const append = async (req: AppendRequest) => {
    if (req.closeApproval !== undefined)
      for (const o of observers) await o.beforeClose?.(req).catch(() => undefined);
    const head = await store.append(req);
    for (const o of observers) {
      try {
        o.committed(req);
      } catch {}
    }
    return head;
  };
  const claimRuns: Store['claimRuns'] = async (owner, leaseMs, limit, now, scope) => {
    const runs = await store.claimRuns(owner, leaseMs, limit, now, scope);
    for (const o of observers) {
      try {
        o.claimed?.(owner, scope, runs);
      } catch {}
    }
    return runs;
  };
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, key) {
      if (key === 'append') return append;
      if (key === 'claimRuns') return claimRuns;
      let f = bound.get(key);
      if (f === undefined) {
        const v = Reflect.get(target, key, target) as unknown;
        if (typeof v !== 'function') return v;
        f = v.bind(target);
        bound.set(key, f);
      }
      return f;
    },
  });
}
