/**
 * Periodic checkpoints (`keel serve --checkpoint-key`): every interval, each tenant with runs gets
 * a signed checkpoint of its run heads if any head moved since its last one. A checkpoint another
 * process made meanwhile (head_conflict) is that tenant's for this round; a run that no longer
 * extends its checkpointed head, or a chain that no longer holds what the witness keeps, is
 * reported, loudly, and never signed over. Owns its timer only:
 * stopping waits for a round in progress, and nothing here keeps the process alive.
 */
import type { KeyObject } from 'node:crypto';
import { ErrorCode, isKeelError } from '../core/errors.ts';
import type { CheckpointWitness, Store } from '../ports/index.ts';
import { type CheckpointMade, makeCheckpoint } from './checkpoints/index.ts';

export interface CheckpointerEvent {
  readonly tenant: string;
  readonly made?: CheckpointMade;
  /** Why this tenant's checkpoint was not made (a rewritten run, the store unavailable). */
  readonly error?: string;
}

export interface CheckpointerOptions {
  readonly key: { readonly privateKey: KeyObject; readonly publicKey: KeyObject };
  readonly everyMs: number;
  readonly onEvent?: (e: CheckpointerEvent) => void;
  /** Where each checkpoint is also kept, outside the store; a store that does not extend it is not signed. */
  readonly witness?: CheckpointWitness;
}

export interface Checkpointer {
  /** One round now, over every tenant with runs (also what the timer runs). */
  round(): Promise<CheckpointerEvent[]>;
  stop(): Promise<void>;
}

export function startCheckpointer(store: Store, o: CheckpointerOptions): Checkpointer {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<CheckpointerEvent[]> | undefined;
  const round = async (): Promise<CheckpointerEvent[]> => {
    const events: CheckpointerEvent[] = [];
    for (const tenant of await store.checkpoints.tenantsWithRuns()) {
      if (stopped) break;
      let e: CheckpointerEvent;
      try {
        e = {
          tenant,
          made: await makeCheckpoint(store, tenant, o.key, undefined, {
            ifMoved: true,
            ...(o.witness ? { witness: o.witness } : {}),
          }),
        };
      } catch (err) {
        if (isKeelError(err) && err.code === ErrorCode.headConflict) continue;
        e = { tenant, error: (err as Error).message };
      }
      events.push(e);
      if (!e.made?.skipped) o.onEvent?.(e);
    }
    return events;
  };
  const once = () => {
    running ??= round().finally(() => {
      running = undefined;
    });
    return running;
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      once()
        .catch((err) => o.onEvent?.({ tenant: '', error: (err as Error).message }))
        .finally(schedule);
    }, o.everyMs);
    timer.unref();
  };
  schedule();
  return {
    round: once,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
