/**
 * How often an action re-reads a run whose head moved under it, and the typed error it ends in
 * when the head keeps moving: every such retry loop in the engine is bounded by this one number.
 */
import { ErrorCode, KeelError } from '../core/errors.ts';

/** How many times an action re-reads a run whose head moved under it before it gives up. */
export const HEAD_RETRIES = 5;

/** An action gave up after the run's head kept moving under it (a bounded retry, never a spin). */
export function headMoved(runId: string, doing: string, cause: unknown): KeelError {
  return new KeelError(
    ErrorCode.headConflict,
    `run ${runId} kept changing while ${doing} (its head moved ${HEAD_RETRIES + 1} times); nothing of this request was applied on top — read the run again and retry`,
    { runId },
    { cause },
  );
}
