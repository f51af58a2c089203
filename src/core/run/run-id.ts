/**
 * Run identity from content: the same (tenant, workflow, version hash, event) always names the same
 * run, so starting it twice is a no-op that returns the first run.
 */
import { type Digest, hashOf } from '../canonical/index.ts';
import type { EventRecord } from '../ledger/index.ts';

export function runIdFor(tenant: string, workflowId: string, specHash: Digest, event: EventRecord): Digest {
  return hashOf({ kind: 'keel.run', tenant, workflowId, specHash, event });
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
