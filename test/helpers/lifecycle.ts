/**
 * Putting a published version at a status, two ways (docs/lifecycle.md):
 *
 * - `promoteThroughCli` walks it up one step at a time with the commands a person runs: promote
 *   TESTING, `keel test` (its tests must pass), promote SHADOW, promote LIVE (the first LIVE
 *   version: its tests pass again), and AUTONOMOUS with a recorded `--override --reason` (a test
 *   has no 20 live runs to show). Each command must succeed. For tests that show the CLI flow.
 * - `putAtStatus` puts it there directly in the store, in-process (`setStatus` from src/testing,
 *   recorded as a fixture, past the gates), for tests of something else that need a LIVE or
 *   AUTONOMOUS version without paying a process per step.
 */
import assert from 'node:assert/strict';
import { createKeel, openStore } from '../../src/app/index.ts';
import type { WorkflowStatus } from '../../src/core/spec/index.ts';
import { setStatus } from '../../src/testing/index.ts';
import { type CliResult, show } from './keel-cli.ts';

const UP: readonly WorkflowStatus[] = ['DRAFT', 'TESTING', 'SHADOW', 'LIVE', 'AUTONOMOUS'];

export interface PromoteOptions {
  /** The version to promote (default: the newest, as the CLI does). */
  readonly version?: number;
  /** Who promotes (`--as`; default: the CLI's own, KEEL_USER or the OS user). */
  readonly as?: string;
  /** Where the version stands now (default DRAFT: just published). */
  readonly from?: WorkflowStatus;
  /** The reason given for the override to AUTONOMOUS. */
  readonly reason?: string;
}

export interface PromotionJson {
  readonly workflowId: string;
  readonly version: number;
  readonly from: WorkflowStatus;
  readonly to: WorkflowStatus;
  readonly by: string;
  readonly override?: { readonly reason: string };
}

/**
 * Walks `workflow` from `o.from` (DRAFT) up to `to` through `keel` (a runner of CLI arguments:
 * `(args) => sandbox.keel(args)`, or runKeel with the test's store and environment), one step at a
 * time, asserting each command succeeds. Returns the promotion records, in order.
 */
export function promoteThroughCli(
  keel: (args: string[]) => CliResult,
  workflow: string,
  to: WorkflowStatus,
  o: PromoteOptions = {},
): PromotionJson[] {
  const from = UP.indexOf(o.from ?? 'DRAFT');
  const target = UP.indexOf(to);
  assert.ok(from >= 0 && target > from, `promoteThroughCli: ${o.from ?? 'DRAFT'} -> ${to} is not a step up`);
  const common = [
    ...(o.version === undefined ? [] : ['--version', String(o.version)]),
    ...(o.as === undefined ? [] : ['--as', o.as]),
  ];
  const records: PromotionJson[] = [];
  for (const status of UP.slice(from + 1, target + 1)) {
    if (status === 'SHADOW') {
      // The gate to SHADOW: the version's tests, run in simulated mode, all pass.
      const tested = keel([
        'test',
        workflow,
        ...(o.version === undefined ? [] : ['--version', String(o.version)]),
        '--json',
      ]);
      assert.equal(tested.code, 0, `keel test ${workflow}: its tests pass\n${show(tested)}`);
    }
    const override =
      status === 'AUTONOMOUS' ? ['--override', '--reason', o.reason ?? 'a test: no live runs to show'] : [];
    const r = keel(['promote', workflow, status, ...common, ...override, '--json']);
    assert.equal(r.code, 0, show(r));
    const { promotion } = JSON.parse(r.stdout) as { promotion: PromotionJson };
    assert.equal(promotion.to, status, show(r));
    records.push(promotion);
  }
  return records;
}

/**
 * Puts `workflow` (its newest version, or `o.version`) at `to` in the store at `store` (a SQLite
 * file or a PostgreSQL URL) directly, past the gates, recorded as a fixture.
 */
export async function putAtStatus(
  store: string,
  tenant: string,
  workflow: string,
  to: WorkflowStatus,
  o: { version?: number; by?: string } = {},
): Promise<void> {
  const keel = createKeel({ store: await openStore(store) });
  try {
    const rec = await keel.workflows.get(tenant, workflow, o.version);
    assert.ok(rec, `no ${workflow}${o.version === undefined ? '' : ` v${o.version}`} in tenant ${tenant}`);
    await setStatus(keel, tenant, workflow, rec.version, to, o.by);
  } finally {
    await keel.close();
  }
}
