/**
 * `WHERE` conditions for finding runs, the same on both stores: by subject (exactly, or a prefix as
 * a byte range, so `runs_by_subject` answers either) and by run id (whole, or a prefix as a range
 * of the run id index). Values arrive checked by the app (core/run/run-search.ts) and are bound
 * through `next`, which returns each one's placeholder. Builds text only: nothing here queries.
 */
import { prefixEnd } from '../../core/run/index.ts';
import type { RunFilter } from '../../ports/index.ts';

/** A whole run id: `sha256:` and 64 hex digits; anything shorter is searched as a prefix. */
const WHOLE_RUN_ID = 71;

export function searchFilter(
  f: Pick<RunFilter, 'subject' | 'subjectPrefix' | 'runId'>,
  next: (value: unknown) => string,
): string[] {
  const where: string[] = [];
  if (f.subject !== undefined) where.push(`subject = ${next(f.subject)}`);
  if (f.subjectPrefix !== undefined)
    where.push(`subject >= ${next(f.subjectPrefix)} AND subject < ${next(prefixEnd(f.subjectPrefix))}`);
  if (f.runId !== undefined)
    where.push(
      f.runId.length >= WHOLE_RUN_ID
        ? `run_id = ${next(f.runId)}`
        : `run_id >= ${next(f.runId)} AND run_id < ${next(prefixEnd(f.runId))}`,
    );
  return where;
}
