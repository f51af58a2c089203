/**
 * What the per-port contract suites share: unique run ids, the append that creates a run, a spec
 * and its version record, and a run root at a chosen time.
 */
import { hashOf } from '../core/canonical/index.ts';
import { chainEntry, type StoredEntry } from '../core/ledger/index.ts';
import type { WorkflowSpec } from '../core/spec/index.ts';
import type { AppendRequest, VersionRecord } from '../ports/index.ts';
import { sampleEvent } from './ledger-fixtures.ts';

let counter = 0;
/** A number not handed out before in this process. */
export const count = () => counter++;
export const uniqueRunId = (label: string) => hashOf({ label, n: counter++, salt: Math.random() });

export function createRequest(
  tenant: string,
  entries: StoredEntry[],
  runId = entries[0]!.runId,
): AppendRequest {
  return {
    tenant,
    runId,
    expectedHead: null,
    entries,
    status: 'running',
    create: {
      workflowId: 'wf',
      version: 1,
      specHash: hashOf('spec'),
      eventId: 'evt-1',
      eventType: 'refund.requested',
    },
  };
}

export const SPEC: WorkflowSpec = {
  id: 'wf',
  version: 1,
  status: 'DRAFT',
  triggers: [{ event: 'refund.requested' }],
  steps: [{ name: 'a', tool: 'noop', args: {} }],
  limits: { maxSteps: 2, maxCostUsd: 0 },
};

export function versionRecord(tenant: string, version: number, spec: WorkflowSpec = SPEC): VersionRecord {
  return {
    tenant,
    workflowId: spec.id,
    version,
    specHash: hashOf({ ...spec, version }),
    spec: { ...spec, version },
    status: spec.status,
    publishedAt: '2026-01-01T00:00:00.000Z',
    publishedBy: 'alice',
  };
}

/** A run root at a chosen time, so listings have distinct creation times. */
export function rootAt(runId: string, tenant: string, at: string): StoredEntry {
  const payload = {
    tenant,
    workflowId: 'wf',
    version: 1,
    specHash: hashOf('spec'),
    status: 'LIVE' as const,
    event: sampleEvent({ tenant }),
    engine: 'keel/test',
  };
  return chainEntry(runId, null, 'run.started', payload, at).stored;
}
