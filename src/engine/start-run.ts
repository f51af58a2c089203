/**
 * Starting a run of a version on an event, named by content: a routed or direct run (under a writ
 * chain admitted first: a refusal creates nothing), or a simulated one — a test of the version,
 * or a shadow beside a live run (or on an event the live version did not start). Each is pinned
 * to the tenant's policy now and created by create-run.ts; the same start twice is one run.
 */
import type { Digest } from '../core/canonical/index.ts';
import type { EventRecord, SplitEntry, TestRef } from '../core/ledger/index.ts';
import {
  directRunIdFor,
  loneShadowRunIdFor,
  runIdFor,
  shadowRunIdFor,
  testRunIdFor,
} from '../core/run/index.ts';
import type { ShadowWork, VersionRecord } from '../ports/index.ts';
import { createRun } from './create-run.ts';
import { checkOnWalk, type EngineContext, type OnWalk, type StartWalk } from './engine-context.ts';
import { admitChain, currentPolicy } from './run-admission.ts';
import type { RunSummary } from './run-summary.ts';

/** How a run is started (`Engine.start`). */
export interface StartOptions {
  /** `background` needs `onWalk`. */
  readonly walk?: StartWalk;
  readonly onWalk?: OnWalk;
  /** The writ chain (root first) the run executes under, admitted before the run exists. */
  readonly writ?: readonly unknown[];
  /** Started by name, not by routing the event: named apart from the routed run of the event. */
  readonly direct?: boolean;
  readonly split?: SplitEntry;
  readonly traceparent?: string;
  /** What to queue with the run's root, in its transaction: queued if and only if the run is created. */
  readonly shadowWork?: (runId: Digest) => readonly ShadowWork[];
}

/** How a simulated run is started (`Engine.startSimulated`). */
export type SimulatedStart = ({ mode: 'test'; test: TestRef } | { mode: 'shadow'; shadowOf?: string }) & {
  /** The status its checks judge it as: a shadow's live version's; a test's default LIVE. */
  judgedAs?: 'LIVE' | 'AUTONOMOUS';
  walk?: StartWalk;
  onWalk?: OnWalk;
};

/** The start's walk as createRun takes it; `background` without `onWalk` is refused. */
function createWalk(ctx: EngineContext, o: { walk?: StartWalk; onWalk?: OnWalk }) {
  const walk = o.walk ?? ctx.walkMode;
  if (walk !== 'background') return { walk: walk === 'inline' };
  checkOnWalk({ walk, onWalk: o.onWalk });
  return { walk, onWalk: o.onWalk as OnWalk };
}

export async function startRun(
  ctx: EngineContext,
  version: VersionRecord,
  event: EventRecord,
  o: StartOptions,
): Promise<{ run: RunSummary; created: boolean }> {
  const walk = createWalk(ctx, o);
  const writ = o.writ === undefined ? undefined : await admitChain(ctx, o.writ, version.tenant);
  const name = o.direct ? directRunIdFor : runIdFor;
  const runId = name(version.tenant, version.workflowId, version.specHash, event);
  return createRun(ctx, runId, version, event, {
    direct: o.direct === true,
    ...walk,
    writ,
    policy: currentPolicy(ctx, version.tenant).policy,
    ...(o.split ? { split: o.split } : {}),
    ...(o.traceparent ? { traceparent: o.traceparent } : {}),
    ...(o.shadowWork ? { shadowWork: o.shadowWork } : {}),
  });
}

/** The test run of `version` on `event` under the tenant's policy now (what startSimulated names). */
export function testRunId(
  ctx: EngineContext,
  version: VersionRecord,
  event: EventRecord,
  test: TestRef,
): Digest {
  const { tenant, workflowId, specHash } = version;
  return testRunIdFor(tenant, workflowId, specHash, event, test, currentPolicy(ctx, tenant).policy);
}

export async function startSimulatedRun(
  ctx: EngineContext,
  version: VersionRecord,
  event: EventRecord,
  o: SimulatedStart,
): Promise<{ run: RunSummary; created: boolean }> {
  const { tenant, specHash } = version;
  const runId =
    o.mode === 'test'
      ? testRunId(ctx, version, event, o.test)
      : o.shadowOf !== undefined
        ? shadowRunIdFor(tenant, o.shadowOf, specHash)
        : loneShadowRunIdFor(tenant, version.workflowId, specHash, event);
  const walk = createWalk(ctx, o);
  return createRun(ctx, runId, version, event, {
    ...walk,
    policy: currentPolicy(ctx, tenant).policy,
    ...(o.mode === 'test'
      ? { mode: 'test', test: o.test }
      : { mode: 'shadow', ...(o.shadowOf !== undefined ? { shadowOf: o.shadowOf } : {}) }),
    judgedAs: o.judgedAs ?? (version.status === 'AUTONOMOUS' ? 'AUTONOMOUS' : 'LIVE'),
  });
}
