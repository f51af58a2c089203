/**
 * What the audit query's contract (audit-query-contract.ts) writes and checks against: steps of
 * each kind it filters on, runs written from them, and the reference definition of which entries
 * a filter selects, in which order; every page of a query.
 */
import assert from 'node:assert/strict';
import { hashOf } from '../core/canonical/index.ts';
import {
  chainEntry,
  decodePayload,
  type EntryKind,
  hasCode,
  namesActor,
  type PayloadOf,
  type StoredEntry,
} from '../core/ledger/index.ts';
import type { EntryFilter, EntryQuery, RunEntry, Store } from '../ports/index.ts';
import { sampleEvent } from './ledger-fixtures.ts';

let n = 0;
export const unique = (p: string) => `${p}-${process.pid}-${n++}-${Math.random().toString(16).slice(2, 8)}`;

export type Step = { [K in EntryKind]: readonly [K, PayloadOf<K>] }[EntryKind];

export const P = hashOf('proposal');
export const allowed = (extra: Partial<PayloadOf<'step.allowed'>> = {}): Step => [
  'step.allowed',
  {
    step: 's',
    tool: 'noop',
    proposalId: P,
    args: {},
    idempotencyKey: hashOf('k'),
    attempt: 1,
    costCents: 0,
    ...extra,
  },
];
export const refused = (code: string): Step => [
  'step.refused',
  { step: 's', tool: 'wipe', proposalId: P, check: 'policy', code, message: `refused: ${code}` },
];
export const finished = (p: PayloadOf<'run.finished'>): Step => ['run.finished', p];
export const resolved = (by: string, decision: 'approved' | 'denied' = 'approved'): Step => [
  'approval.resolved',
  { proposalId: P, decision, by },
];

export interface Made {
  readonly tenant: string;
  readonly runIds: string[];
  /** Every entry written, as the query returns it. */
  readonly all: RunEntry[];
}

/** A run of `workflowId` whose entries are `steps` after its root, one second apart from `start`. */
export async function writeRun(
  store: Store,
  tenant: string,
  workflowId: string,
  start: number,
  steps: readonly Step[],
  runId = hashOf({ run: unique('audit') }),
): Promise<RunEntry[]> {
  const at = (i: number) => new Date(start + i * 1000).toISOString();
  const root = chainEntry(
    runId,
    null,
    'run.started',
    {
      tenant,
      workflowId,
      version: 2,
      specHash: hashOf('spec'),
      status: 'LIVE',
      event: sampleEvent({ tenant }),
      engine: 'keel/test',
    },
    at(0),
  ).stored;
  const entries: StoredEntry[] = [root];
  for (const [kind, payload] of steps) {
    const prev = entries.at(-1)!;
    entries.push(
      chainEntry(runId, { seq: prev.seq, hash: prev.hash }, kind, payload as never, at(entries.length))
        .stored,
    );
  }
  await store.ledger.append({
    tenant,
    runId,
    expectedHead: null,
    entries,
    status: 'running',
    create: {
      workflowId,
      version: 2,
      specHash: hashOf('spec'),
      eventId: 'evt-1',
      eventType: 'refund.requested',
    },
  });
  return entries.map((e) => ({ ...e, workflowId, version: 2 }));
}

/** The reference: which of `all` match `f`, in the audit order. */
export function expected(all: readonly RunEntry[], f: EntryFilter): RunEntry[] {
  const matches = (e: RunEntry) => {
    const p = decodePayload(e);
    return (
      (f.runId === undefined || e.runId === f.runId) &&
      (f.workflowId === undefined || e.workflowId === f.workflowId) &&
      (f.kind === undefined || e.kind === f.kind) &&
      (f.since === undefined || e.at >= f.since) &&
      (f.until === undefined || e.at < f.until) &&
      (f.actor === undefined || namesActor(e.kind, p, f.actor)) &&
      (f.code === undefined || hasCode(e.kind, p, f.code))
    );
  };
  const key = (e: RunEntry) => [e.at, e.runId, e.seq] as const;
  const before = (a: RunEntry, b: RunEntry) => {
    const [x, y] = [key(a), key(b)];
    if (x[0] !== y[0]) return x[0] < y[0] ? -1 : 1;
    if (x[1] !== y[1]) return x[1] < y[1] ? -1 : 1;
    return x[2] - y[2];
  };
  return all.filter(matches).sort(before);
}

/** Every page of `q` at `limit`, checking each page's size. */
export async function pages(store: Store, tenant: string, q: EntryQuery, limit: number): Promise<RunEntry[]> {
  const seen: RunEntry[] = [];
  let cursor: string | undefined;
  for (let i = 0; ; i++) {
    assert.ok(i < 200, 'paging ends');
    const page = await store.ledger.queryEntries(tenant, { ...q, limit, ...(cursor ? { cursor } : {}) });
    assert.ok(page.entries.length <= limit);
    if (page.next) assert.equal(page.entries.length, limit, 'a page with a next page is full');
    seen.push(...page.entries);
    cursor = page.next;
    if (!cursor) return seen;
  }
}

export const ids = (es: readonly RunEntry[]) => es.map((e) => `${e.runId}#${e.seq}`);
