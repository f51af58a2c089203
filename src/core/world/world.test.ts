import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { type Delta, deltaProblems } from './delta.ts';
import { applyDeltas, EMPTY_WORLD, foldWorld, type World } from './world.ts';

const create = (id: string, value: unknown = 1): Delta => ({ op: 'create', id, value });
const replace = (id: string, expectedVersion: number, value: unknown = 2): Delta => ({
  op: 'replace',
  id,
  expectedVersion,
  value,
});
const retract = (id: string, expectedVersion: number): Delta => ({ op: 'retract', id, expectedVersion });

describe('applyDeltas', () => {
  test('creates at version 1, replaces with the expected version, retracts', () => {
    const r = foldWorld([[create('t:1', 'a')], [replace('t:1', 1, 'b')], [replace('t:1', 2, 'c')]]);
    assert.ok(r.ok);
    assert.deepEqual(r.world.get('t:1'), { id: 't:1', version: 3, value: 'c' });
    const gone = applyDeltas(r.world, [retract('t:1', 3)]);
    assert.ok(gone.ok && !gone.world.has('t:1'));
  });

  test('refuses each invalid delta with its own code, and leaves the world unchanged', () => {
    const base = (foldWorld([[create('t:1')]]) as { world: World }).world;
    const cases: [Delta[], string][] = [
      [[create('t:1')], 'delta_create_on_existing'],
      [[replace('t:2', 1)], 'delta_replace_on_missing'],
      [[retract('t:2', 1)], 'delta_retract_on_missing'],
      [[replace('t:1', 2)], 'delta_stale_version'],
      [[create('t:3'), replace('t:1', 7)], 'delta_stale_version'],
    ];
    for (const [deltas, code] of cases) {
      const r = applyDeltas(base, deltas);
      assert.equal(r.ok, false);
      if (!r.ok) assert.equal(r.failure.code, code);
      assert.equal(base.size, 1, 'the world a failed step started from is untouched');
      assert.ok(!base.has('t:3'));
    }
  });

  test('folding all deltas equals folding from a snapshot plus the rest (property)', () => {
    const ids = fc.constantFrom('a:1', 'a:2', 'a:3');
    const delta = fc.oneof(
      ids.map((id) => create(id)),
      fc.tuple(ids, fc.integer({ min: 1, max: 4 })).map(([id, v]) => replace(id, v)),
      fc.tuple(ids, fc.integer({ min: 1, max: 4 })).map(([id, v]) => retract(id, v)),
    );
    fc.assert(
      fc.property(fc.array(fc.array(delta, { maxLength: 3 }), { maxLength: 12 }), fc.nat(), (steps, cut) => {
        const k = steps.length === 0 ? 0 : cut % (steps.length + 1);
        const whole = foldWorld(steps);
        const snapshot = foldWorld(steps.slice(0, k));
        const resumed = snapshot.ok ? foldWorld(steps.slice(k), snapshot.world) : snapshot;
        assert.equal(whole.ok, resumed.ok);
        if (whole.ok && resumed.ok) assert.deepEqual([...whole.world], [...resumed.world]);
        else if (!whole.ok && !resumed.ok) assert.equal(whole.failure.code, resumed.failure.code);
      }),
      { numRuns: 500 },
    );
  });

  test('versions only grow: after any successful fold every resource version is >= 1', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom<Delta>(create('x:1'), replace('x:1', 1), replace('x:1', 2), retract('x:1', 2)),
          { maxLength: 8 },
        ),
        (ds) => {
          const r = applyDeltas(EMPTY_WORLD, ds);
          if (r.ok) for (const res of r.world.values()) assert.ok(res.version >= 1);
        },
      ),
    );
  });
});

describe('deltaProblems', () => {
  test('names the delta and the field of each problem', () => {
    assert.deepEqual(deltaProblems('x'), [{ index: -1, message: 'deltas must be an array' }]);
    assert.deepEqual(deltaProblems([{ op: 'create', id: 'ok:1', value: 1 }]), []);
    assert.match(deltaProblems([{ op: 'upsert', id: 'a:1' }])[0]!.message, /^op:/);
    assert.match(deltaProblems([{ op: 'replace', id: 'a:1', value: 1 }])[0]!.message, /^expectedVersion:/);
    assert.match(deltaProblems([{ op: 'create', id: 'bad id!', value: 1 }])[0]!.message, /^id:/);
    assert.match(
      deltaProblems([{ op: 'retract', id: 'a:1', expectedVersion: 1, value: 2 }])[0]!.message,
      /^value: not a field/,
    );
    assert.equal(deltaProblems([{ op: 'create', id: 'a:1' }])[0]!.message, 'value is missing');
  });
});
