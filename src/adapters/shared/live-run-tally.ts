/**
 * The SQL of `RunIndex.tallyLiveRuns`, shared by both stores: a version's live runs in a window
 * counted where they are kept, however many there are (never the newest N loaded and counted),
 * with the approvals people resolved in them. A run counts when it finished, has no mode (not a
 * test or shadow), and its root is a `run.started` without `forkOf` or `attemptOf`, started while
 * the version was LIVE or AUTONOMOUS. The stores differ only in how a payload field is read
 * (SQLite's json_extract, PostgreSQL's jsonb). Statements use `$n` placeholders: $1 tenant,
 * $2 workflow, $3 version, $4 since, $5 how many examples (the counts use only $1-$4). Pure:
 * nothing here queries.
 */
import { TERMINAL_STATUSES } from '../../core/ledger/index.ts';
import type { LiveRunTally, LiveRunWindow } from '../../ports/index.ts';
import type { Row } from './row.ts';

/** SQL for the top-level payload field `name` of the entry aliased `alias`, as text (NULL: absent). */
export type PayloadField = (alias: string, name: 'forkOf' | 'attemptOf' | 'status' | 'decision') => string;

export const SQLITE_PAYLOAD_FIELD: PayloadField = (alias, name) =>
  `json_extract(CAST(${alias}.payload AS TEXT), '$.${name}')`;

export const POSTGRES_PAYLOAD_FIELD: PayloadField = (alias, name) =>
  `(convert_from(${alias}.payload, 'UTF8')::jsonb ->> '${name}')`;

const quoted = (xs: readonly string[]) => xs.map((x) => `'${x}'`).join(', ');

/** The tally's three statements: the counts, the newest runs, the newest runs with a denial. */
export function liveRunTallySql(field: PayloadField): {
  readonly counts: string;
  readonly runIds: string;
  readonly deniedRunIds: string;
} {
  // The root's payload is read only for the tenant's own runs (as the audit query does).
  const counted = `WITH counted AS (
    SELECT r.run_key, r.run_id, r.created_at FROM runs r JOIN entries e ON e.run_key = r.run_key AND e.seq = 0
    WHERE r.tenant = $1 AND r.workflow_id = $2 AND r.version = $3 AND r.mode IS NULL AND r.created_at >= $4
      AND r.status IN (${quoted(TERMINAL_STATUSES)})
      AND (CASE WHEN r.tenant = $1 AND e.kind = 'run.started'
        THEN ${field('e', 'forkOf')} IS NULL AND ${field('e', 'attemptOf')} IS NULL
          AND ${field('e', 'status')} IN ('LIVE', 'AUTONOMOUS')
        ELSE FALSE END))`;
  const resolved = `FROM entries a JOIN counted c ON a.run_key = c.run_key WHERE a.kind = 'approval.resolved'`;
  const denied = `${field('a', 'decision')} = 'denied'`;
  return {
    counts: `${counted}
      SELECT (SELECT count(*) FROM counted) AS runs,
        (SELECT count(*) ${resolved}) AS resolved,
        (SELECT count(*) ${resolved} AND ${denied}) AS denied`,
    runIds: `${counted} SELECT run_id FROM counted ORDER BY created_at DESC, run_id DESC LIMIT $5`,
    deniedRunIds: `${counted} SELECT c.run_id, c.created_at ${resolved} AND ${denied}
      GROUP BY c.run_id, c.created_at ORDER BY c.created_at DESC, c.run_id DESC LIMIT $5`,
  };
}

/** The statements' values, in `$n` order (examples kept within 1..500). */
export function liveRunTallyValues(tenant: string, w: LiveRunWindow): unknown[] {
  const examples = Math.min(Math.max(Math.trunc(w.examples) || 1, 1), 500);
  return [tenant, w.workflowId, w.version, w.since, examples];
}

/** The tally from the three statements' rows. */
export function toLiveRunTally(
  counts: Row,
  runIds: readonly Row[],
  deniedRunIds: readonly Row[],
): LiveRunTally {
  const denied = Number(counts.denied ?? 0);
  return {
    runs: Number(counts.runs ?? 0),
    approved: Number(counts.resolved ?? 0) - denied,
    denied,
    runIds: runIds.map((r) => r.run_id as string),
    deniedRunIds: deniedRunIds.map((r) => r.run_id as string),
  };
}
