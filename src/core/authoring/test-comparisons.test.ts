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

test('where each comparison sits: which item of the top-level "and", under an "or", under a "not"', () => {
  const at = (t: string) =>
    comparisonsOf(t).map(
      (c) =>
        `${payloadField(c) ?? c.path} ${c.op} ${JSON.stringify(c.value)} #${c.conjunct}${c.underOr ? ' or' : ''}${c.underNot ? ' not' : ''}`,
    );
  assert.deepEqual(
    at(
      'payload.plan == "free" and (payload.priority == "urgent" or payload.plan == "pro") and 100 < payload.amount',
    ),
    ['plan == "free" #0', 'priority == "urgent" #1 or', 'plan == "pro" #1 or', 'amount > 100 #2'],
  );
  // An "and" in brackets is read as its items; an "and" under an "or" is one item.
  assert.deepEqual(at('(payload.a >= 3 and payload.b <= 9) and payload.c != "x"'), [
    'a >= 3 #0',
    'b <= 9 #1',
    'c != "x" #2',
  ]);
  assert.deepEqual(at('payload.a == "x" or payload.b == "y" and payload.c == "z"'), [
    'a == "x" #0 or',
    'b == "y" #0 or',
    'c == "z" #0 or',
  ]);
  // Under a "not" the operator reads as it acts; the comparison is marked all the same.
  assert.deepEqual(at('not payload.count > 5 and payload.count > 10'), [
    'count <= 5 #0 not',
    'count > 10 #1',
  ]);
  assert.deepEqual(at('not (payload.plan == "pro" or 5 >= payload.seats)'), [
    'plan != "pro" #0 or not',
    'seats > 5 #0 or not',
  ]);
  assert.deepEqual(at('not not payload.tier == "gold"'), ['tier == "gold" #0 not']);
  // event. is the event itself; a literal of any kind, single quotes and escapes read as their value.
  assert.deepEqual(at('event.payload.vip == true and payload.note != \'a "b"\' and null == payload.x'), [
    'vip == true #0',
    'note != "a \\"b\\"" #1',
    'x == null #2',
  ]);
  // Two paths, or a truthy field, compare no literal; other roots keep their path.
  assert.deepEqual(at('payload.a == payload.b and payload.flag and subject == "T-1"'), [
    'subject == "T-1" #2',
  ]);
  assert.deepEqual(at('payload.plan = "x" and payload.count > 1'), [], 'a test that does not parse has none');
});
