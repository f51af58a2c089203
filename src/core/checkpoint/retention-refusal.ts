/**
 * Whether retention may remove a run now (docs/audit.md, "Retention"), one rule for the dry run
 * and the removal: the app asks it of every candidate, and each store asks it again inside the
 * transaction that removes the run. Pure: the run's status and head, the head the export holds,
 * and the head the tenant's checkpoints last recorded for it.
 */
import { TERMINAL_STATUSES } from '../ledger/index.ts';

interface HeadOf {
  readonly seq: number;
  readonly hash: string;
}

/** Why the run may not be removed now, or undefined. */
export function retentionRefusal(
  run: { readonly status: string; readonly head: HeadOf } | undefined,
  exported: HeadOf | undefined,
  covered: HeadOf | undefined,
): string | undefined {
  if (!run) return 'not in this store';
  if (!(TERMINAL_STATUSES as readonly string[]).includes(run.status))
    return `it is ${run.status}, not finished`;
  if (!exported) return 'the export does not hold it';
  if (run.head.seq !== exported.seq || run.head.hash !== exported.hash)
    return `its head is seq ${run.head.seq} now, not the exported seq ${exported.seq}: export it again`;
  if (!covered || covered.seq !== exported.seq || covered.hash !== exported.hash)
    return 'the last checkpoint does not cover its head: make a checkpoint first (keel checkpoint)';
  return undefined;
}
