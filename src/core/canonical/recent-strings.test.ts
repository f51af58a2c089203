import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecentStrings } from './recent-strings.ts';

describe('RecentStrings', () => {
  it('keeps only strings at least minLength long, looked up by value', () => {
    const m = new RecentStrings<number>(4, 8, 100);
    m.set('abc', 1);
    m.set('abcd', 2);
    assert.equal(m.get('abc'), undefined);
    assert.equal(m.get(['ab', 'cd'].join('')), 2);
  });

  it('drops the least recently used past maxEntries or maxTotalLength, and never keeps a string over the total', () => {
    const m = new RecentStrings<string>(1, 2, 10);
    m.set('aaaa', 'a');
    m.set('bbbb', 'b');
    assert.equal(m.get('aaaa'), 'a'); // now most recently used
    m.set('cccc', 'c'); // three entries: bbbb goes
    assert.deepEqual(
      ['aaaa', 'bbbb', 'cccc'].map((k) => m.get(k)),
      ['a', undefined, 'c'],
    );
    m.set('dddddddd', 'd'); // 4 + 4 + 8 > 10: both older go
    assert.deepEqual(
      ['aaaa', 'cccc', 'dddddddd'].map((k) => m.get(k)),
      [undefined, undefined, 'd'],
    );
    m.set('e'.repeat(11), 'e');
    assert.equal(m.get('e'.repeat(11)), undefined);
    assert.equal(m.get('dddddddd'), 'd');
  });
});
