import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { patternCovers } from '../tools/index.ts';
import { attenuate, type ChildRequest } from './attenuate.ts';
import { rootBody } from './fixtures.test-helpers.ts';
import { EFFECT_RANK, type WritBody, writHash } from './writ.ts';

const parent = rootBody('sha256:issuer');
const req: ChildRequest = { id: 'child-1', subject: 'run-7', issuer: 'sha256:issuer' };

function codes(over: Partial<ChildRequest>, p: WritBody = parent, remaining = p.budget): string[] {
  const r = attenuate(p, { ...req, ...over }, remaining);
  return r.ok ? [] : r.violations.map((v) => v.code);
}

describe('attenuate', () => {
  it('derives a child that inherits what it does not ask for, names its parent by hash, one level deeper', () => {
    const r = attenuate(
      parent,
      { ...req, scopes: ['helpdesk.reply'], budget: { cents: 500 } },
      parent.budget,
    );
    assert.ok(r.ok);
    assert.equal(r.body.parent, writHash(parent));
    assert.equal(r.body.depth, 1);
    assert.deepEqual(r.body.scopes, ['helpdesk.reply']);
    assert.deepEqual(r.body.budget, { cents: 500, steps: 10, calls: 8 });
    assert.deepEqual(r.body.window, parent.window);
    assert.equal(r.body.tenant, 'acme');
  });

  it('refuses each widened dimension with its own code', () => {
    assert.deepEqual(codes({ scopes: ['payments.refund'] }), ['writ_scope_widened']);
    assert.deepEqual(codes({ scopes: ['*'] }), ['writ_scope_widened']);
    assert.deepEqual(codes({ budget: { calls: 9 } }), ['writ_budget_raised']);
    assert.deepEqual(codes({ window: { notAfter: '2026-04-01T00:00:01Z' } }), ['writ_window_extended']);
    assert.deepEqual(codes({ window: { notBefore: '2026-02-28T23:59:59Z' } }), ['writ_window_extended']);
    const readOnly = { ...parent, effectCeiling: { max: 'read' as const, destructive: false } };
    assert.deepEqual(codes({ effectCeiling: { max: 'write' } }, readOnly), ['writ_effect_raised']);
    assert.deepEqual(codes({ effectCeiling: { destructive: true } }, readOnly), ['writ_effect_raised']);
    assert.deepEqual(codes({ delegation: { maxDepth: 4 } }), ['writ_depth_exceeded']);
    assert.deepEqual(codes({}, { ...parent, depth: 3, parent: writHash(parent) }), ['writ_depth_exceeded']);
    assert.deepEqual(codes({ tenant: 'globex' }), ['writ_tenant_changed']);
    assert.deepEqual(codes({}, { ...parent, delegation: { maxDepth: 3, maySubdivide: false } }), [
      'writ_not_subdividable',
    ]);
  });

  it('reserves from the REMAINING budget, not the parent total', () => {
    const remaining = { cents: 300, steps: 2, calls: 1 };
    const r = attenuate(parent, req, remaining);
    assert.ok(r.ok);
    assert.deepEqual(r.body.budget, remaining);
    assert.deepEqual(codes({ budget: { cents: 301 } }, parent, remaining), ['writ_budget_raised']);
    // A remaining figure above the parent's own budget is clamped to it.
    assert.deepEqual(codes({ budget: { cents: 10_001 } }, parent, { cents: 99_999, steps: 10, calls: 8 }), [
      'writ_budget_raised',
    ]);
  });

  it('accepts narrower prefix patterns and exact names under a prefix', () => {
    const p = { ...parent, scopes: ['helpdesk.*'] };
    assert.deepEqual(codes({ scopes: ['helpdesk.tickets.*', 'helpdesk.reply'] }, p), []);
    assert.deepEqual(codes({ scopes: ['helpdesk'] }, p), ['writ_scope_widened']);
  });

  it('reports every violation at once, and a malformed request as writ_malformed naming the field', () => {
    const all = codes({ scopes: ['x'], tenant: 'globex', budget: { steps: 11 } });
    assert.deepEqual(all.sort(), ['writ_budget_raised', 'writ_scope_widened', 'writ_tenant_changed']);
    const r = attenuate(
      parent,
      { ...req, budget: { cents: -1 }, window: { notBefore: 'soon' } },
      parent.budget,
    );
    assert.ok(!r.ok);
    assert.deepEqual(
      r.violations.map((v) => [v.code, v.field]),
      [
        ['writ_malformed', 'budget.cents'],
        ['writ_malformed', 'window.notBefore'],
      ],
    );
  });
});

// ---- properties: attenuation never widens anything ---------------------------------------

const SCOPES = [
  '*',
  'helpdesk.*',
  'helpdesk.tickets.*',
  'helpdesk.reply',
  'payments.*',
  'payments.refund',
  'issue_refund',
];
const DAYS = Array.from({ length: 10 }, (_, i) => `2026-03-${String(i + 10).padStart(2, '0')}T00:00:00Z`);
const EFFECTS = ['read', 'write', 'external'] as const;

const narrowOr = <T>(narrow: fc.Arbitrary<T>, any: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: narrow, weight: 12 }, { arbitrary: any, weight: 1 });

const windowArb = fc
  .tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 9 }))
  .filter(([a, b]) => a !== b)
  .map(([a, b]) => ({ notBefore: DAYS[Math.min(a, b)]!, notAfter: DAYS[Math.max(a, b)]! }));
const budgetArb = fc.record({
  cents: fc.integer({ min: 0, max: 1000 }),
  steps: fc.integer({ min: 0, max: 12 }),
  calls: fc.integer({ min: 0, max: 12 }),
});

const parentArb: fc.Arbitrary<WritBody> = fc
  .record({
    scopes: fc.subarray(SCOPES),
    budget: budgetArb,
    window: windowArb,
    max: fc.constantFrom(...EFFECTS),
    destructive: fc.boolean(),
    maxDepth: narrowOr(fc.integer({ min: 2, max: 4 }), fc.integer({ min: 0, max: 1 })),
    maySubdivide: narrowOr(fc.constant(true), fc.constant(false)),
  })
  .map((p) =>
    rootBody('sha256:issuer', {
      scopes: p.scopes,
      budget: p.budget,
      window: p.window,
      effectCeiling: { max: p.max, destructive: p.destructive },
      delegation: { maxDepth: p.maxDepth, maySubdivide: p.maySubdivide },
    }),
  );

const idx = (iso: string) => DAYS.indexOf(iso);
/** Requests biased towards valid children (so the properties are not vacuous), with widenings mixed in. */
const requestFor = (p: WritBody, n: number, avail = p.budget): fc.Arbitrary<ChildRequest> =>
  fc
    .record({
      tenant: narrowOr(fc.constant(undefined), fc.constant('globex')),
      scopes: narrowOr(fc.subarray([...p.scopes]), fc.subarray(SCOPES)),
      cents: narrowOr(fc.integer({ min: 0, max: avail.cents }), fc.integer({ min: 0, max: 1200 })),
      steps: narrowOr(fc.integer({ min: 0, max: avail.steps }), fc.integer({ min: 0, max: 14 })),
      calls: narrowOr(fc.integer({ min: 0, max: avail.calls }), fc.integer({ min: 0, max: 14 })),
      from: narrowOr(
        fc.integer({ min: idx(p.window.notBefore), max: idx(p.window.notAfter) - 1 }),
        fc.integer({ min: 0, max: 8 }),
      ),
      span: narrowOr(
        fc.integer({ min: 1, max: idx(p.window.notAfter) - idx(p.window.notBefore) }),
        fc.integer({ min: 1, max: 9 }),
      ),
      max: narrowOr(
        fc.constantFrom(...EFFECTS.slice(0, EFFECT_RANK[p.effectCeiling.max] + 1)),
        fc.constantFrom(...EFFECTS),
      ),
      destructive: narrowOr(fc.constant(p.effectCeiling.destructive), fc.boolean()),
      maxDepth: narrowOr(fc.integer({ min: 0, max: p.delegation.maxDepth }), fc.integer({ min: 0, max: 5 })),
      maySubdivide: fc.boolean(),
    })
    .map((r) => ({
      id: `child-${n}`,
      subject: 'run',
      issuer: 'sha256:issuer',
      ...(r.tenant ? { tenant: r.tenant } : {}),
      scopes: r.scopes,
      budget: { cents: r.cents, steps: r.steps, calls: r.calls },
      window: {
        notBefore: DAYS[r.from]!,
        notAfter: DAYS[Math.min(idx(p.window.notAfter) >= r.from + r.span ? r.from + r.span : 9, 9)]!,
      },
      effectCeiling: { max: r.max, destructive: r.destructive },
      delegation: { maxDepth: r.maxDepth, maySubdivide: r.maySubdivide },
    }));

/** The subset relation, stated independently of the implementation's violation list. */
function assertSubset(child: WritBody, root: WritBody): void {
  assert.equal(child.tenant, root.tenant);
  for (const s of child.scopes)
    assert.ok(
      root.scopes.some((p) => patternCovers(p, s)),
      `scope ${s}`,
    );
  for (const k of ['cents', 'steps', 'calls'] as const) assert.ok(child.budget[k] <= root.budget[k], k);
  assert.ok(Date.parse(child.window.notBefore) >= Date.parse(root.window.notBefore));
  assert.ok(Date.parse(child.window.notAfter) <= Date.parse(root.window.notAfter));
  assert.ok(EFFECT_RANK[child.effectCeiling.max] <= EFFECT_RANK[root.effectCeiling.max]);
  assert.ok(!child.effectCeiling.destructive || root.effectCeiling.destructive);
  assert.ok(child.depth <= root.delegation.maxDepth);
  assert.ok(child.delegation.maxDepth <= root.delegation.maxDepth);
  assert.ok(root.delegation.maySubdivide);
}

describe('attenuate: properties', () => {
  it('any accepted child is a subset of its parent on every dimension', () => {
    let accepted = 0;
    fc.assert(
      fc.property(
        parentArb.chain((p) =>
          budgetArb.chain((used) => {
            const remaining = {
              cents: p.budget.cents - Math.min(used.cents, p.budget.cents),
              steps: p.budget.steps - Math.min(used.steps, p.budget.steps),
              calls: p.budget.calls - Math.min(used.calls, p.budget.calls),
            };
            return fc.tuple(fc.constant(p), fc.constant(remaining), requestFor(p, 1, remaining));
          }),
        ),
        ([p, remaining, r]) => {
          const res = attenuate(p, r, remaining);
          if (!res.ok) {
            assert.ok(res.violations.length > 0);
            return;
          }
          accepted++;
          assertSubset(res.body, p);
          for (const k of ['cents', 'steps', 'calls'] as const) assert.ok(res.body.budget[k] <= remaining[k]);
        },
      ),
      { numRuns: 500 },
    );
    assert.ok(
      accepted >= 50,
      `only ${accepted} of 500 requests were accepted: the property is nearly vacuous`,
    );
  });

  it('a child of a child is a subset of the root', () => {
    let grandchildren = 0;
    fc.assert(
      fc.property(
        parentArb.chain((p) => fc.tuple(fc.constant(p), requestFor(p, 1))),
        fc.integer(),
        ([root, r1], seed) => {
          const c1 = attenuate(root, r1, root.budget);
          if (!c1.ok) return;
          const [r2] = fc.sample(requestFor(c1.body, 2), { seed, numRuns: 1 });
          const c2 = attenuate(c1.body, r2!, c1.body.budget);
          if (!c2.ok) return;
          grandchildren++;
          assertSubset(c2.body, root);
          assertSubset(c2.body, c1.body);
          assert.equal(c2.body.depth, 2);
        },
      ),
      { numRuns: 2000 },
    );
    assert.ok(
      grandchildren >= 25,
      `only ${grandchildren} grandchildren were accepted: the property is nearly vacuous`,
    );
  });

  it('asking for exactly the parent (an empty request) is accepted whenever the parent may subdivide within its depth', () => {
    fc.assert(
      fc.property(parentArb, (p) => {
        const res = attenuate(p, { id: 'c', subject: 's', issuer: 'sha256:issuer' }, p.budget);
        assert.equal(res.ok, p.delegation.maySubdivide && p.delegation.maxDepth >= 1);
      }),
    );
  });
});
