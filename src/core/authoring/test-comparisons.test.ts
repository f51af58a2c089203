import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alternativesOf, comparisonsOf, payloadField } from './test-comparisons.ts';

const read = (t: string) =>
  comparisonsOf(t).map((c) => `${c.path} ${c.op} ${JSON.stringify(c.value)}${c.stated ? ' !' : ''}`);

test('comparisons are read as they act: under a "not" turned, a literal written first swapped', () => {
  assert.deepEqual(read('payload.plan != "premium" and payload.score < 85'), [
    'payload.plan != "premium" !',
    'payload.score < 85 !',
  ]);
  assert.deepEqual(read('not (payload.plan == "premium")'), ['payload.plan != "premium"']);
  assert.deepEqual(read('not (payload.score >= 85 or payload.vip == true)'), [
    'payload.score < 85',
    'payload.vip != true',
  ]);
  assert.deepEqual(read('85 > payload.score'), ['payload.score < 85 !']);
  assert.deepEqual(read('not not payload.tier == "gold"'), ['payload.tier == "gold"']);
});

test('only the top-level "and" states what holds whenever the test does', () => {
  assert.deepEqual(read('payload.a == "x" and (payload.b == "y" or payload.c == "z")'), [
    'payload.a == "x" !',
    'payload.b == "y"',
    'payload.c == "z"',
  ]);
  assert.deepEqual(read('payload.flagged'), []);
  assert.deepEqual(read('payload.a =='), [], 'a test that does not parse has none');
});

test('alternatives: an "or" testing one path for several values, at any depth, never under a "not"', () => {
  const either = 'payload.category == "harassment" or payload.category == "spam"';
  assert.deepEqual(alternativesOf(either), [{ path: 'payload.category', values: ['harassment', 'spam'] }]);
  assert.deepEqual(alternativesOf(`(${either}) and payload.count > 3`), [
    { path: 'payload.category', values: ['harassment', 'spam'] },
  ]);
  assert.deepEqual(alternativesOf(`not (${either})`), []);
  assert.deepEqual(alternativesOf('payload.category == "spam" or payload.source == "spam"'), []);
  assert.equal(payloadField(comparisonsOf('payload.category == "spam"')[0]!), 'category');
  assert.equal(payloadField(comparisonsOf('steps.look.output.tier == "gold"')[0]!), undefined);
});
