import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isToolPattern, patternCovers, patternMatches } from './tool-pattern.ts';

const PATTERNS = ['*', 'a.*', 'a.b.*', 'a.b', 'a', 'ab', 'ab.*', 'b.*', 'a.bc'];
const NAMES = ['a', 'ab', 'a.b', 'a.bc', 'a.b.c', 'b.x', 'ab.c'];

describe('tool patterns', () => {
  it('recognises exact names, prefix patterns and *; nothing else', () => {
    for (const p of ['issue_refund', 'helpdesk.*', 'helpdesk.tickets.*', '*', 'a-b.c_d'])
      assert.ok(isToolPattern(p), p);
    for (const p of ['', 'helpdesk*', '*.x', 'a..b', 'a.**', 'pay ments', 'a.*.b', 7])
      assert.ok(!isToolPattern(p), String(p));
  });

  it('a prefix pattern matches at a dot boundary only', () => {
    assert.ok(patternMatches('payments.*', 'payments.refund'));
    assert.ok(!patternMatches('payments.*', 'payments'));
    assert.ok(!patternMatches('payments.*', 'paymentsx.refund'));
    assert.ok(patternMatches('*', 'anything'));
    assert.ok(patternMatches('get_order', 'get_order') && !patternMatches('get_order', 'get_orders'));
  });

  it('covers is sound: whatever the inner pattern matches, the outer one matches', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PATTERNS),
        fc.constantFrom(...PATTERNS),
        fc.constantFrom(...NAMES),
        (o, i, n) => {
          if (patternCovers(o, i) && patternMatches(i, n))
            assert.ok(patternMatches(o, n), `${o} covers ${i}, matches ${n}`);
        },
      ),
      { numRuns: 500 },
    );
    assert.ok(patternCovers('a.*', 'a.b.*') && !patternCovers('a.b.*', 'a.*') && !patternCovers('a.*', '*'));
  });
});
