/**
 * A store whose commits are watched: after each append commits, the observer is told what was
 * committed (the request), for trace export and metrics. Installed only when one of them is
 * configured, so a Keel without them pays nothing. An observer that throws is ignored: watching
 * a commit never fails it. Only the ledger's append and the work queue's claims are wrapped; every
 * other port is the store's own.
 */
import {
  type AppendRequest,
  type ClaimedRun,
  type ClaimScope,
  type Ledger,
  type Store,
  type WorkQueue,
  withPorts,
} from '../ports/index.ts';

export interface CommitObserver {
  /** Before an append that closes an approval (to read when it was opened); may be absent. */
  beforeClose?(req: AppendRequest): Promise<void>;
  committed(req: AppendRequest): void;
  claimed?(owner: string, scope: ClaimScope | undefined, runs: readonly ClaimedRun[]): void;
}

export function observedStore(store: Store, observers: readonly CommitObserver[]): Store {
  const { ledger, queue } = store;
  const append = async (req: AppendRequest) => {
    if (req.closeApproval !== undefined)
      for (const o of observers) await o.beforeClose?.(req).catch(() => undefined);
    const head = await ledger.append(req);
    for (const o of observers) {
      try {
        o.committed(req);
      } catch {}
    }
    return head;
  };
  const claimRuns: WorkQueue['claimRuns'] = async (owner, leaseMs, limit, now, scope) => {
    const runs = await queue.claimRuns(owner, leaseMs, limit, now, scope);
    for (const o of observers) {
      try {
        o.claimed?.(owner, scope, runs);
      } catch {}
    }
    return runs;
  };
  return withPorts(store, {
    ledger: overriding<Ledger>(ledger, { append }),
    queue: overriding<WorkQueue>(queue, { claimRuns }),
  });
}

/** The port with some methods replaced; the others bound to the port itself. */
function overriding<P extends object>(port: P, methods: Partial<P>): P {
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(port, {
    get(target, key) {
      if (Object.hasOwn(methods, key)) return methods[key as keyof P];
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
