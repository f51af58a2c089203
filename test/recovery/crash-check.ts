/**
 * What the crash tests check once the workers are quiet, from the ledgers on one side and the
 * tools' own effect rows on the other: every run completed, or suspended as outcome_unknown right
 * after the unanswered allow of a non-idempotent tool; every ledger verifies; every
 * non-idempotent effect happened at most once per idempotency key (exactly once for a completed
 * step), every idempotent one exactly once per key that a ledger allowed, and none elsewhere.
 */
import assert from 'node:assert/strict';
import type { Keel } from '../../src/app/index.ts';
import { type Entry, type OutcomeUnknownSuspension, payloadOf } from '../../src/core/ledger/index.ts';
import type { EffectRow } from './crash-tools.ts';

export interface CrashTally {
  readonly completed: number;
  readonly suspended: number;
  /** Idempotent calls repeated (same key) by recoveries. */
  readonly retried: number;
  /** Non-idempotent effects that happened in a suspended run (the tool's side says so). */
  readonly suspendedAfterEffect: number;
}

export async function checkAfterCrashes(
  keel: Keel,
  tenant: string,
  expectedRuns: number,
  rows: readonly EffectRow[],
): Promise<CrashTally> {
  const runs = [];
  for (let cursor: string | undefined; ; ) {
    const page = await keel.runs.list(tenant, { limit: 1000, ...(cursor ? { cursor } : {}) });
    runs.push(...page.runs);
    if (!page.next) break;
    cursor = page.next;
  }
  assert.equal(runs.length, expectedRuns, 'no run is lost');
  const effects = new Map(rows.map((r) => [`${r.tool} ${r.key}`, r]));
  const allowedKeys = new Set<string>();
  let completed = 0;
  let suspended = 0;
  let suspendedAfterEffect = 0;
  for (const run of runs) {
    const verified = await keel.runs.verify(tenant, run.runId);
    assert.ok(verified.ok, `run ${run.runId} verifies: ${JSON.stringify(verified)}`);
    const entries: Entry[] = await keel.runs.entries(tenant, run.runId);
    const allows = entries.filter((e) => e.kind === 'step.allowed').map((e) => payloadOf(e, 'step.allowed'));
    for (const a of allows) allowedKeys.add(`${a.tool} ${a.idempotencyKey}`);
    const steps = allows.map((a) => a.step);
    assert.equal(new Set(steps).size, steps.length, `run ${run.runId} allows each step once`);
    if (run.status === 'completed') {
      completed++;
      for (const a of allows) {
        const row = effects.get(`${a.tool} ${a.idempotencyKey}`);
        assert.ok(row, `completed run ${run.runId}: ${a.tool} in step ${a.step} left its effect`);
        if (a.tool === 'charge') assert.equal(row.calls, 1, `charge ${a.idempotencyKey} happened once`);
      }
      continue;
    }
    assert.equal(run.status, 'outcome_unknown', `run ${run.runId} is completed or suspended`);
    suspended++;
    const [allowed, last] = entries.slice(-2);
    assert.equal(last?.kind, 'run.suspended', `run ${run.runId} ends with its suspension`);
    assert.equal(allowed?.kind, 'step.allowed', 'the suspension answers an effect-started entry');
    const a = payloadOf(allowed!, 'step.allowed');
    const s = payloadOf(last!, 'run.suspended') as OutcomeUnknownSuspension;
    assert.equal(a.tool, 'charge', 'only a non-idempotent tool suspends a run');
    assert.equal(s.idempotencyKey, a.idempotencyKey);
    if (effects.has(`charge ${a.idempotencyKey}`)) suspendedAfterEffect++;
  }
  let retried = 0;
  for (const row of rows) {
    assert.ok(
      allowedKeys.has(`${row.tool} ${row.key}`),
      `effect ${row.tool} ${row.key} was allowed by a ledger`,
    );
    if (row.tool === 'charge') assert.ok(row.calls <= 1, `charge ${row.key} happened at most once`);
    else if (row.calls > 1) retried++;
  }
  return { completed, suspended, retried, suspendedAfterEffect };
}
