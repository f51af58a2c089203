/**
 * The contract of writ budgets (ports/writ-budgets.ts) shared across runs: an append that carries
 * a reservation charges every writ of the run's chain in its own transaction, or is refused whole
 * (writ_refused, writ_budget_exhausted, naming the writ that ran out) with nothing written; a
 * release gives back (never below zero); appends racing for the last unit — in one turn of one
 * handle, or through two handles — get it exactly once. Registered by `runStoreContract`, so
 * SQLite and PostgreSQL obey the same rules; every test uses its own tenant and writs.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { type Digest, hashOf } from '../core/canonical/index.ts';
import { isKeelError } from '../core/errors.ts';
import { chainEntry, type StoredEntry } from '../core/ledger/index.ts';
import { type WritBody, type WritBudget, writHash } from '../core/writs/index.ts';
import type { AppendRequest, BudgetChange, Store } from '../ports/index.ts';
import { buildLedger, FIXED_TIME } from './ledger-fixtures.ts';

const unique = (label: string) => `${label}-${randomBytes(6).toString('hex')}`;

export function body(tenant: string, id: string, budget: WritBudget, parent: WritBody | null): WritBody {
  return {
    v: 1,
    id,
    tenant,
    subject: id,
    issuer: hashOf('issuer'),
    parent: parent ? writHash(parent) : null,
    scopes: ['*'],
    budget,
    window: { notBefore: '2026-01-01T00:00:00Z', notAfter: '2100-01-01T00:00:00Z' },
    effectCeiling: { max: 'external', destructive: true },
    delegation: { maxDepth: 3, maySubdivide: true },
    depth: parent ? parent.depth + 1 : 0,
  };
}

/** Stores a chain (bodies only matter to the store: it never verifies signatures) and returns the leaf's hash. */
export async function storeChain(store: Store, tenant: string, bodies: readonly WritBody[]): Promise<Digest> {
  const leaf = writHash(bodies[bodies.length - 1]!);
  await store.keys.putWritChain(
    tenant,
    leaf,
    JSON.stringify(bodies.map((b) => ({ body: b, signature: 'x' }))),
  );
  return leaf;
}

const budget = (steps: number, calls: number, cents: number): WritBudget => ({ steps, calls, cents });

function newRun(tenant: string, runId: string, b?: BudgetChange): AppendRequest {
  return {
    tenant,
    runId,
    expectedHead: null,
    entries: buildLedger(runId, 0, tenant),
    status: 'running',
    create: { workflowId: 'wf', version: 1, specHash: hashOf('spec'), eventId: runId, eventType: 'go' },
    ...(b ? { budget: b } : {}),
  };
}

/** One more entry on a run whose head is `after`. */
function next(
  tenant: string,
  after: StoredEntry,
  b?: BudgetChange,
  status: AppendRequest['status'] = 'running',
) {
  const { stored } = chainEntry(
    after.runId,
    { seq: after.seq, hash: after.hash },
    'step.completed',
    {
      step: `s${after.seq}`,
      tool: 'noop',
      proposalId: hashOf({ after: after.hash }),
      output: 1,
      costCents: 0,
    },
    FIXED_TIME,
  );
  const req: AppendRequest = {
    tenant,
    runId: after.runId,
    expectedHead: { seq: after.seq, hash: after.hash },
    entries: [stored],
    status,
    ...(b ? { budget: b } : {}),
  };
  return { req, entry: stored };
}

const exhausted = (writ: Digest) => (e: unknown) =>
  isKeelError(e) &&
  e.code === 'writ_refused' &&
  (e.details as { code?: string }).code === 'writ_budget_exhausted' &&
  (e.details as { writ?: string }).writ === writ;

const used = async (store: Store, tenant: string, leaf: Digest) =>
  (await store.budgets.readWritBudgets(tenant, leaf))!.map((u) => [
    u.id,
    u.used.steps,
    u.used.calls,
    u.used.cents,
  ]);

export function writBudgetContract(current: () => Store, another?: () => Store): void {
  describe('writ budgets shared across runs', () => {
    test('a reservation charges every writ of the chain with its append, and a release gives it back', async () => {
      const store = current();
      const tenant = unique('budget');
      const root = body(tenant, 'root', budget(10, 10, 1000), null);
      const child = body(tenant, 'child', budget(4, 3, 500), root);
      const leaf = await storeChain(store, tenant, [root, child]);
      assert.deepEqual(await used(store, tenant, leaf), [
        ['root', 0, 0, 0],
        ['child', 0, 0, 0],
      ]);
      const runId = unique('run');
      await store.ledger.append(newRun(tenant, runId, { writ: leaf, reserve: budget(3, 2, 120) }));
      assert.deepEqual(await used(store, tenant, leaf), [
        ['root', 3, 2, 120],
        ['child', 3, 2, 120],
      ]);
      const [head] = (await store.ledger.readEntries(tenant, runId)).slice(-1);
      // The release never takes a writ below zero.
      const { req } = next(tenant, head!, { writ: leaf, release: budget(1, 5, 20) }, 'completed');
      await store.ledger.append(req);
      assert.deepEqual(await used(store, tenant, leaf), [
        ['root', 2, 0, 100],
        ['child', 2, 0, 100],
      ]);
      const limits = (await store.budgets.readWritBudgets(tenant, leaf))!.map((u) => u.limit);
      assert.deepEqual(limits, [budget(10, 10, 1000), budget(4, 3, 500)]);
      // Unknown chain, or another tenant's: nothing to read.
      assert.equal(await store.budgets.readWritBudgets(tenant, hashOf('no such writ')), undefined);
      assert.equal(await store.budgets.readWritBudgets(unique('other'), leaf), undefined);
    });

    test('a reservation past any writ of the chain is refused whole: nothing written, nothing charged', async () => {
      const store = current();
      const tenant = unique('budget');
      const root = body(tenant, 'root', budget(5, 2, 1000), null);
      const a = body(tenant, 'child-a', budget(5, 2, 1000), root);
      const b = body(tenant, 'child-b', budget(5, 2, 1000), root);
      const leafA = await storeChain(store, tenant, [root, a]);
      const leafB = await storeChain(store, tenant, [root, b]);
      const first = unique('run');
      await store.ledger.append(newRun(tenant, first, { writ: leafA, reserve: budget(1, 1, 0) }));
      await store.ledger.append(newRun(tenant, unique('run'), { writ: leafB, reserve: budget(1, 1, 0) }));
      // The root's two calls are taken through its two children: a third run under either is refused.
      const refusedRun = unique('run');
      await assert.rejects(
        store.ledger.append(newRun(tenant, refusedRun, { writ: leafA, reserve: budget(1, 1, 0) })),
        (e: unknown) => {
          assert.ok(exhausted(writHash(root))(e), String(e));
          const d = (e as { details: Record<string, unknown> }).details;
          assert.deepEqual(
            [d.id, d.used, d.limit, d.asked],
            ['root', budget(2, 2, 0), root.budget, budget(1, 1, 0)],
          );
          return true;
        },
      );
      assert.equal(await store.runs.getRun(tenant, refusedRun), undefined);
      // On an existing run the head stays where it was.
      const [head] = (await store.ledger.readEntries(tenant, first)).slice(-1);
      await assert.rejects(
        store.ledger.append(next(tenant, head!, { writ: leafA, reserve: budget(0, 1, 0) }).req),
        exhausted(writHash(root)),
      );
      assert.deepEqual((await store.runs.getRun(tenant, first))?.head, { seq: head!.seq, hash: head!.hash });
      assert.deepEqual(await used(store, tenant, leafA), [
        ['root', 2, 2, 0],
        ['child-a', 1, 1, 0],
      ]);
      // A stale head is a head conflict, and charges nothing either.
      const stale = next(tenant, head!, { writ: leafB, reserve: budget(0, 0, 5) });
      await store.ledger.append(next(tenant, head!).req);
      await assert.rejects(
        store.ledger.append(stale.req),
        (e: unknown) => isKeelError(e) && e.code === 'head_conflict',
      );
      assert.deepEqual(await used(store, tenant, leafB), [
        ['root', 2, 2, 0],
        ['child-b', 1, 1, 0],
      ]);
      // A writ whose chain is not in the store cannot be charged: the append is refused.
      await assert.rejects(
        store.ledger.append(
          newRun(tenant, unique('run'), { writ: hashOf('unknown writ'), reserve: budget(1, 1, 0) }),
        ),
        (e: unknown) => isKeelError(e) && e.code === 'ledger_invalid',
      );
    });

    test('appends issued together racing for the last units: exactly the units there are are given', async () => {
      const store = current();
      const tenant = unique('budget');
      const root = body(tenant, 'root', budget(100, 3, 0), null);
      const leaf = await storeChain(store, tenant, [root]);
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, () =>
          store.ledger.append(newRun(tenant, unique('run'), { writ: leaf, reserve: budget(1, 1, 0) })),
        ),
      );
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 3);
      for (const r of results)
        if (r.status === 'rejected') assert.ok(exhausted(leaf)(r.reason), String(r.reason));
      assert.deepEqual(await used(store, tenant, leaf), [['root', 3, 3, 0]]);
      assert.equal((await store.runs.listRuns(tenant)).runs.length, 3);
    });

    test('appends through two handles racing for the last unit: exactly one gets it', async () => {
      const stores = another ? [current(), another()] : [current(), current()];
      const tenant = unique('budget');
      const root = body(tenant, 'root', budget(100, 1, 0), null);
      const leaf = await storeChain(stores[0]!, tenant, [root]);
      const results = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) =>
          stores[i % 2]!.ledger.append(
            newRun(tenant, unique('run'), { writ: leaf, reserve: budget(1, 1, 0) }),
          ),
        ),
      );
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, JSON.stringify(results));
      assert.deepEqual(await used(stores[1]!, tenant, leaf), [['root', 1, 1, 0]]);
    });
  });
}
