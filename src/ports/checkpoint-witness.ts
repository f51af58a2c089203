/**
 * Where signed checkpoints are kept outside the store (docs/audit.md, "Witness"): a place the
 * database's owner cannot reach, so a deleted or rolled-back checkpoint chain is found against
 * it. A witness only ever grows: it never replaces a checkpoint it holds, and holds each tenant's
 * checkpoints in seq order.
 */
import type { Checkpoint } from '../core/checkpoint/index.ts';

export interface CheckpointWitness {
  /** What it is, as it may be printed (a directory, a file). */
  readonly name: string;
  /**
   * The tenant's last checkpoint it holds (its highest seq), as it was signed, or undefined when
   * it holds none. One it cannot read, or that is not a checkpoint, is an error, never "none".
   */
  last(tenant: string): Promise<Checkpoint | undefined>;
  /**
   * Keeps `c` after the tenant's last checkpoint. A witness that holds `c.seq` already keeps what
   * it holds: the same checkpoint again is a no-op, another one is refused (`ledger_invalid`).
   */
  append(c: Checkpoint): Promise<void>;
}
