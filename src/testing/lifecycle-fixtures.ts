/**
 * What the lifecycle's contract suites (registry, evidence, run index) share: unique names, a
 * spec with two versions, a lifecycle record, and runs created with a mode, at a chosen time, or
 * finished with a person's decisions.
 */
import { hashOf } from '../core/canonical/index.ts';
import {
  chainEntry,
  type EntryKind,
  type Head,
  type PayloadOf,
  type StoredEntry,
} from '../core/ledger/index.ts';
import type { WorkflowSpec } from '../core/spec/index.ts';
import type { NewPromotion, Store } from '../ports/index.ts';
import { sampleEvent } from './ledger-fixtures.ts';

let n = 0;
export const unique = (p: string) => `${p}-${process.pid}-${n++}-${Math.random().toString(16).slice(2, 8)}`;

export const SPEC: WorkflowSpec = {
  id: 'wf',
  version: 1,
  status: 'DRAFT',
  triggers: [{ event: 'go' }],
  steps: [{ name: 'a', tool: 'noop', args: {} }],
  limits: { maxSteps: 1, maxCostUsd: 0 },
};

export async function twoVersions(store: Store, tenant: string): Promise<void> {
  for (const version of [1, 2])
    await store.registry.putVersion({
      tenant,
      workflowId: 'wf',
      version,
      specHash: hashOf({ ...SPEC, version }),
      spec: { ...SPEC, version },
      status: 'DRAFT',
      publishedAt: '2026-01-01T00:00:00.000Z',
      publishedBy: 'alice',
    });
}

export const move = (tenant: string, version: number, from: string, to: string, at: string): NewPromotion =>
  ({ tenant, workflowId: 'wf', version, from, to, by: 'dana', at, kind: 'promote' }) as NewPromotion;

/** A run row created with a mode, at a chosen time and ending in a chosen status. */
export async function run(
  store: Store,
  tenant: string,
  o: {
    at: string;
    version?: number;
    mode?: 'test' | 'shadow';
    shadowOf?: string;
    status?: 'running' | 'completed' | 'failed';
  },
): Promise<string> {
  const runId = hashOf({ unique: unique('run') });
  const root = chainEntry(
    runId,
    null,
    'run.started',
    {
      tenant,
      workflowId: 'wf',
      version: o.version ?? 1,
      specHash: hashOf('spec'),
      status: 'LIVE',
      event: sampleEvent({ tenant }),
      engine: 'keel/test',
      ...(o.mode ? { mode: o.mode } : {}),
      ...(o.shadowOf ? { shadowOf: o.shadowOf } : {}),
    },
    o.at,
  ).stored;
  await store.ledger.append({
    tenant,
    runId,
    expectedHead: null,
    entries: [root],
    status: o.status ?? 'running',
    create: {
      workflowId: 'wf',
      version: o.version ?? 1,
      specHash: hashOf('spec'),
      eventId: 'e',
      eventType: 'go',
      ...(o.mode ? { mode: o.mode } : {}),
      ...(o.shadowOf ? { shadowOf: o.shadowOf } : {}),
    },
  });
  return runId;
}

/**
 * A finished run whose root says how it was started, with a person's decision on each approval in
 * `decisions` (approved or denied, in order).
 */
export async function decidedRun(
  store: Store,
  tenant: string,
  o: {
    at: string;
    version?: number;
    root?: Record<string, unknown>;
    mode?: 'test' | 'shadow';
    decisions?: readonly ('approved' | 'denied')[];
    status?: 'completed' | 'refused' | 'running';
  },
): Promise<string> {
  const runId = hashOf({ unique: unique('run') });
  const entries: StoredEntry[] = [];
  let prev: Head | null = null;
  const add = <K extends EntryKind>(kind: K, payload: PayloadOf<K>) => {
    const { stored } = chainEntry(runId, prev, kind, payload, o.at);
    entries.push(stored);
    prev = { seq: stored.seq, hash: stored.hash };
  };
  add('run.started', {
    tenant,
    workflowId: 'wf',
    version: o.version ?? 1,
    specHash: hashOf('spec'),
    status: 'LIVE',
    event: sampleEvent({ tenant }),
    engine: 'keel/test',
    ...(o.mode ? { mode: o.mode } : {}),
    ...o.root,
  } as PayloadOf<'run.started'>);
  (o.decisions ?? []).forEach((decision, i) => {
    const proposalId = hashOf({ runId, i });
    add('approval.requested', {
      step: `s${i}`,
      tool: 'close',
      proposalId,
      args: {},
      costCents: 0,
      reason: 'destructive',
      channel: 'cli',
    });
    add('approval.resolved', { proposalId, decision, by: 'dana' });
  });
  const status = o.status ?? (o.decisions?.includes('denied') ? 'refused' : 'completed');
  if (status !== 'running') add('run.finished', { status, outputs: {} });
  await store.ledger.append({
    tenant,
    runId,
    expectedHead: null,
    entries,
    status,
    create: {
      workflowId: 'wf',
      version: o.version ?? 1,
      specHash: hashOf('spec'),
      eventId: 'e',
      eventType: 'go',
      ...(o.mode ? { mode: o.mode } : {}),
    },
  });
  return runId;
}
