import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalize, type Digest, hashOf, isDigest } from '../canonical/index.ts';
import type { EventRecord, PayloadOf } from '../ledger/index.ts';
import { idempotencyKeyFor, proposalIdFor, rootNamesRun, runIdFor, testRunIdFor } from './run-id.ts';

const SPEC = hashOf({ id: 'refund-under-50', version: 3 });

function event(payload: Record<string, unknown>, over: Partial<EventRecord> = {}): EventRecord {
  return {
    id: 'evt_1042',
    type: 'refund.requested',
    tenant: 'acme',
    source: 'support-desk',
    subject: 'order-1042',
    payload,
    time: '2026-03-01T11:59:58Z',
    ...over,
  };
}

/** The same object with its keys inserted in reverse order, recursively. */
function reversed(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversed);
  if (typeof v === 'object' && v !== null) {
    return Object.fromEntries(
      Object.entries(v)
        .reverse()
        .map(([k, x]) => [k, reversed(x)]),
    );
  }
  return v;
}

const payload = fc.dictionary(
  fc.string(),
  fc.oneof(
    fc.string(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.dictionary(fc.string(), fc.integer()),
  ),
);
const digest: fc.Arbitrary<Digest> = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((b) => `sha256:${Buffer.from(b).toString('hex')}` as Digest);
const inputs = fc.record({
  tenant: fc.string({ minLength: 1 }),
  workflowId: fc.string({ minLength: 1 }),
  specHash: digest,
  event: fc.record({
    id: fc.string({ minLength: 1 }),
    type: fc.string({ minLength: 1 }),
    tenant: fc.string({ minLength: 1 }),
    source: fc.string(),
    subject: fc.string(),
    payload,
    time: fc.constant('2026-03-01T11:59:58Z'),
  }),
});

describe('runIdFor', () => {
  it('is a digest', () => {
    assert.ok(isDigest(runIdFor('acme', 'refund-under-50', SPEC, event({ amount_usd: 42.5 }))));
  });

  it('is stable under the key order of the event and its payload', () => {
    fc.assert(
      fc.property(inputs, ({ tenant, workflowId, specHash, event: e }) => {
        const a = runIdFor(tenant, workflowId, specHash, e);
        const b = runIdFor(tenant, workflowId, specHash, reversed(e) as EventRecord);
        assert.equal(a, b);
      }),
      { numRuns: 300 },
    );
    assert.equal(
      runIdFor('acme', 'w', SPEC, event({ amount_usd: 42.5, reason: 'damaged', order: { id: 1, lines: 2 } })),
      runIdFor('acme', 'w', SPEC, event({ order: { lines: 2, id: 1 }, reason: 'damaged', amount_usd: 42.5 })),
    );
  });

  it('differs whenever the tenant, workflow, spec hash or event differ', () => {
    fc.assert(
      fc.property(inputs, inputs, (x, y) => {
        const same = canonicalize(x) === canonicalize(y);
        const a = runIdFor(x.tenant, x.workflowId, x.specHash, x.event);
        const b = runIdFor(y.tenant, y.workflowId, y.specHash, y.event);
        assert.equal(a === b, same);
      }),
      { numRuns: 300 },
    );
  });

  it('differs for each single changed input', () => {
    const base = event({ amount_usd: 42.5 });
    const id = runIdFor('acme', 'refund-under-50', SPEC, base);
    assert.notEqual(runIdFor('globex', 'refund-under-50', SPEC, base), id);
    assert.notEqual(runIdFor('acme', 'refund-over-50', SPEC, base), id);
    assert.notEqual(
      runIdFor('acme', 'refund-under-50', hashOf({ id: 'refund-under-50', version: 4 }), base),
      id,
    );
    assert.notEqual(runIdFor('acme', 'refund-under-50', SPEC, event({ amount_usd: 42.51 })), id);
    assert.notEqual(
      runIdFor('acme', 'refund-under-50', SPEC, event({ amount_usd: 42.5 }, { id: 'evt_1043' })),
      id,
    );
    assert.notEqual(
      runIdFor(
        'acme',
        'refund-under-50',
        SPEC,
        event({ amount_usd: 42.5 }, { time: '2026-03-01T11:59:59Z' }),
      ),
      id,
    );
  });

  it('does not confuse a field moved between tenant and workflow id', () => {
    const e = event({});
    assert.notEqual(runIdFor('ab', 'c', SPEC, e), runIdFor('a', 'bc', SPEC, e));
  });
});

describe('idempotencyKeyFor and proposalIdFor', () => {
  const RUN = runIdFor('acme', 'refund-under-50', SPEC, event({ amount_usd: 42.5 }));

  it('gives a tool the same idempotency key for the same run, step and attempt, and a new one per attempt', () => {
    assert.equal(idempotencyKeyFor(RUN, 'refund', 1), idempotencyKeyFor(RUN, 'refund', 1));
    assert.notEqual(idempotencyKeyFor(RUN, 'refund', 2), idempotencyKeyFor(RUN, 'refund', 1));
    assert.notEqual(idempotencyKeyFor(RUN, 'lookup', 1), idempotencyKeyFor(RUN, 'refund', 1));
    assert.notEqual(
      idempotencyKeyFor(hashOf('another run'), 'refund', 1),
      idempotencyKeyFor(RUN, 'refund', 1),
    );
  });

  it('addresses a proposal by its content: argument key order does not matter, argument values do', () => {
    const a = proposalIdFor(RUN, 'refund', 'issue_refund', { order_id: 'order-1042', amount_usd: 42.5 });
    assert.equal(
      proposalIdFor(RUN, 'refund', 'issue_refund', { amount_usd: 42.5, order_id: 'order-1042' }),
      a,
    );
    assert.notEqual(
      proposalIdFor(RUN, 'refund', 'issue_refund', { order_id: 'order-1042', amount_usd: 42.51 }),
      a,
    );
    assert.notEqual(
      proposalIdFor(RUN, 'refund', 'void_order', { order_id: 'order-1042', amount_usd: 42.5 }),
      a,
    );
    assert.notEqual(
      proposalIdFor(RUN, 'refund2', 'issue_refund', { order_id: 'order-1042', amount_usd: 42.5 }),
      a,
    );
  });

  it('never gives a proposal id, an idempotency key and a run id the same value', () => {
    const ids = new Set([
      RUN,
      idempotencyKeyFor(RUN, 'refund', 1),
      proposalIdFor(RUN, 'refund', 'issue_refund', {}),
    ]);
    assert.equal(ids.size, 3);
  });
});

describe('test run ids', () => {
  const ev = event({ amount: 30 });
  const test = { name: 'refunds 30', approvals: 'approve' } as const;
  const policy = hashOf({ rules: ['deny refunds'] });
  const root = (over: Record<string, unknown>) =>
    ({
      tenant: 'acme',
      workflowId: 'refund-under-50',
      version: 3,
      specHash: SPEC,
      event: ev,
      mode: 'test',
      test,
      ...over,
    }) as unknown as PayloadOf<'run.started'>;

  it('a test run under a policy is another run than the same test without it, and than under another policy', () => {
    const none = testRunIdFor('acme', 'refund-under-50', SPEC, ev, test);
    const under = testRunIdFor('acme', 'refund-under-50', SPEC, ev, test, policy);
    const other = testRunIdFor('acme', 'refund-under-50', SPEC, ev, test, hashOf({ rules: [] }));
    assert.equal(new Set([none, under, other]).size, 3);
  });

  it('its root names it under its pinned policy; one named before policies named test runs still verifies', () => {
    const under = testRunIdFor('acme', 'refund-under-50', SPEC, ev, test, policy);
    const legacy = testRunIdFor('acme', 'refund-under-50', SPEC, ev, test);
    assert.equal(rootNamesRun(root({ policy }), under), true);
    assert.equal(rootNamesRun(root({ policy }), legacy), true);
    assert.equal(rootNamesRun(root({}), legacy), true);
    // Without a pinned policy, the id made under one is not this root's.
    assert.equal(rootNamesRun(root({}), under), false);
    assert.equal(rootNamesRun(root({ policy: hashOf({ rules: [] }) }), under), false);
  });
});
