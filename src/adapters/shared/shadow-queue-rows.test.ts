import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { groupsInTurn, headsPerGroup, roundRobin } from './shadow-queue-rows.ts';

describe('the shadow queue hands out work in turn', () => {
  test('for all backlogs, no version gets a second item before every version with work got one', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 9 }),
        fc.integer({ min: 1, max: 30 }),
        (sizes, limit) => {
          const lists = sizes.map((size, g) => Array.from({ length: size }, (_, i) => ({ g, i })));
          const picked = roundRobin(lists, limit);
          const total = sizes.reduce((a, b) => a + b, 0);
          assert.equal(picked.length, Math.min(limit, total));
          // Each version's items in their order; counts differ by at most one unless a version ran out.
          const count = sizes.map(() => 0);
          for (const p of picked) {
            assert.equal(p.i, count[p.g]);
            count[p.g]!++;
            for (let h = 0; h < sizes.length; h++)
              if (count[h]! < sizes[h]!)
                assert.ok(count[h]! >= count[p.g]! - 1, JSON.stringify({ sizes, picked }));
          }
        },
      ),
    );
  });

  test('claims of one start after the version served last, and wrap around', () => {
    const g = (version: number) => ({ tenant: 't', workflowId: 'wf', version });
    const groups = [g(4), g(2), g(3)];
    assert.deepEqual(
      groupsInTurn(groups).map((x) => x.version),
      [2, 3, 4],
    );
    assert.deepEqual(
      groupsInTurn(groups, g(2)).map((x) => x.version),
      [3, 4, 2],
    );
    assert.deepEqual(
      groupsInTurn(groups, g(4)).map((x) => x.version),
      [2, 3, 4],
    );
    assert.deepEqual(
      groupsInTurn(groups, g(9)).map((x) => x.version),
      [2, 3, 4],
    );
    // Serving one at a time with the cursor visits every version before any twice.
    let after: ReturnType<typeof g> | undefined;
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) {
      const next = groupsInTurn(groups, after)[0]!;
      seen.push(next.version);
      after = next;
    }
    assert.deepEqual(seen, [2, 3, 4, 2, 3, 4]);
    assert.equal(headsPerGroup(3, 1), 1);
    assert.equal(headsPerGroup(2, 8), 8);
  });
});
