/**
 * Run identity from content: the same (tenant, workflow, version hash, event) always names the same
 * run, so starting it twice is a no-op that returns the first run. Every kind of run — routed,
 * started directly, forked, re-executed, delegated — is named by a hash of what its root records,
 * so `verify` can recompute a run's id from its root alone (`rootNamesRun`) and catch a row or a
 * root that was moved, edited or swapped.
 */
import { type Digest, hashOf } from '../canonical/index.ts';
import type { EventRecord, PayloadOf, TestRef } from '../ledger/index.ts';

/** A run started by routing an event to a workflow's LIVE (or AUTONOMOUS) version. */
export function runIdFor(tenant: string, workflowId: string, specHash: Digest, event: EventRecord): Digest {
  return hashOf({ kind: 'keel.run', tenant, workflowId, specHash, event });
}

/**
 * A run started directly (`keel run`, `keel.runs.start`, an OpenWOP create), not by routing: its
 * own name, so trying a TESTING version on an event never takes the name of the run the LIVE
 * routing of that event makes later (a spec hash does not change with the version's status).
 */
export function directRunIdFor(
  tenant: string,
  workflowId: string,
  specHash: Digest,
  event: EventRecord,
): Digest {
  return hashOf({ kind: 'keel.direct', tenant, workflowId, specHash, event });
}

/**
 * The shadow run of the SHADOW version `specHash` on the event of live run `of`: one per live run
 * and shadow version, so starting it again (a retried event, a recovery) finds the same run.
 */
export function shadowRunIdFor(tenant: string, of: string, specHash: Digest): Digest {
  return hashOf({ kind: 'keel.shadow', tenant, of, specHash });
}

/**
 * The shadow run of the SHADOW version `specHash` on an event the live version does not start (its
 * triggers do not match, the candidate's do): there is no live run to name it after, so it is
 * named by the event, apart from every routed, direct and test run of it.
 */
export function loneShadowRunIdFor(
  tenant: string,
  workflowId: string,
  specHash: Digest,
  event: EventRecord,
): Digest {
  return hashOf({ kind: 'keel.shadow-alone', tenant, workflowId, specHash, event });
}

/**
 * A test run (`keel test`): the version on the test's event, with the test's name and approvals,
 * under the policy it is judged by (`policy`, the tenant's policy hash, when it has one). Named apart
 * from every live run, so testing a version never takes the name of a live run; and a test run
 * under another policy is another run, so evidence gathered under one policy never stands for a
 * test under the next.
 */
export function testRunIdFor(
  tenant: string,
  workflowId: string,
  specHash: Digest,
  event: EventRecord,
  test: TestRef,
  policy?: Digest,
): Digest {
  return hashOf({
    kind: 'keel.test',
    tenant,
    workflowId,
    specHash,
    event,
    test,
    ...(policy !== undefined ? { policy } : {}),
  });
}

/** A fork of `source` at `fromSeq`, continuing on `specHash` from `event`. */
export function forkRunIdFor(
  tenant: string,
  source: string,
  fromSeq: number,
  mode: 'replay' | 'branch',
  specHash: Digest,
  event: EventRecord,
): Digest {
  return hashOf({ kind: 'keel.fork', tenant, source, fromSeq, mode, specHash, event });
}

/** The `attempt`-th re-execution of a run (the first rerun is attempt 2). */
export function attemptRunIdFor(of: string, attempt: number): Digest {
  return hashOf({ kind: 'keel.attempt', of, attempt });
}

/** The child run a parent's delegation step starts, per attempt of that step. */
export function childRunIdFor(tenant: string, parentRunId: string, step: string, attempt: number): Digest {
  return hashOf({ kind: 'keel.delegation', tenant, parent: parentRunId, step, attempt });
}

/**
 * Ledgers recorded before roots named their attempt are checked against attempts 1..this; a
 * larger one is not recomputed (it would name a run re-executed or re-delegated more often).
 */
const LEGACY_ATTEMPTS = 100;

/** Whether a run's root names it: `runId` is the id its recorded content derives. */
export function rootNamesRun(root: PayloadOf<'run.started'>, runId: string): boolean {
  const { tenant, workflowId, specHash, event } = root;
  if (root.forkOf) {
    const f = root.forkOf;
    return forkRunIdFor(tenant, f.runId, f.fromSeq, f.mode, specHash, event) === runId;
  }
  const byAttempt = (name: (attempt: number) => Digest, attempt: number | undefined) => {
    if (attempt !== undefined) return name(attempt) === runId;
    for (let a = 1; a <= LEGACY_ATTEMPTS; a++) if (name(a) === runId) return true;
    return false;
  };
  if (root.attemptOf !== undefined) {
    const of = root.attemptOf;
    return byAttempt((a) => attemptRunIdFor(of, a), root.attempt);
  }
  if (root.delegatedBy) {
    const d = root.delegatedBy;
    return byAttempt((a) => childRunIdFor(tenant, d.runId, d.step, a), d.attempt);
  }
  if (root.mode === 'shadow')
    return root.shadowOf !== undefined
      ? shadowRunIdFor(tenant, root.shadowOf, specHash) === runId
      : loneShadowRunIdFor(tenant, workflowId, specHash, event) === runId;
  if (root.mode === 'test') {
    const t = root.test;
    if (t === undefined) return false;
    // Named under its pinned policy; a test run from before policies named test runs, without it.
    const named = (policy?: Digest) => testRunIdFor(tenant, workflowId, specHash, event, t, policy) === runId;
    return named(root.policy) || (root.policy !== undefined && named(undefined));
  }
  if (root.direct) return directRunIdFor(tenant, workflowId, specHash, event) === runId;
  return runIdFor(tenant, workflowId, specHash, event) === runId;
}

/** The idempotency key a tool receives: stable across crashes and retries of the same attempt. */
export function idempotencyKeyFor(runId: string, step: string, attempt: number): Digest {
  return hashOf({ kind: 'keel.idempotency', runId, step, attempt });
}

/** A proposal is content-addressed: same run, step, tool and arguments, same id. */
export function proposalIdFor(
  runId: string,
  step: string,
  tool: string,
  args: Readonly<Record<string, unknown>>,
): Digest {
  return hashOf({ kind: 'keel.proposal', runId, step, tool, args });
}
