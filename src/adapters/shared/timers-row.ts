/**
 * The timers line of `keel status` from either store's row (`count(*) AS n, min(wake_at) AS next`
 * over waiting runs): how many runs wait on a timer, and the earliest wake time (ms).
 */
import type { WorkerStatus } from '../../ports/index.ts';
import type { Row } from './row.ts';

export function timersOf(r: Row): NonNullable<WorkerStatus['timers']> {
  const next = r.next === null || r.next === undefined ? undefined : Number(r.next);
  return { waiting: Number(r.n), ...(next !== undefined ? { nextWakeAt: next } : {}) };
}
