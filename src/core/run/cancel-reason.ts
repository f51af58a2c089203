/**
 * What a person asks when cancelling a run, and the reason its `run.finished` entry records:
 * "cancelled by <by>" or "cancelled by <by>: <reason>". The ledger holds only that sentence, so a
 * replay reproduces it from the record.
 */

export interface CancelRequest {
  /** Who cancels (an authenticated person or a service acting for one). */
  readonly by: string;
  /** Why, in their words. */
  readonly reason?: string;
}

export function cancelReason(c: CancelRequest): string {
  return c.reason ? `cancelled by ${c.by}: ${c.reason}` : `cancelled by ${c.by}`;
}
