import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { EventLike } from './event-like.ts';
import { resolveArgs, type TemplateScope } from './resolve-args.ts';
import type { SourceRef } from './scan-templates.ts';

const EVENT: EventLike = {
  id: 'evt-1',
  type: 'refund.requested',
  tenant: 'acme',
  source: 'helpdesk',
  subject: 'T-1001',
  time: '2026-11-30T09:00:00Z',
  payload: {
    refund_amount: 30,
    note: 'damaged',
    vip: true,
    items: [{ sku: 'A-1', qty: 2 }],
    nil: null,
    obj: { a: 1 },
  },
};

function scope(over: Partial<TemplateScope> = {}): TemplateScope & { draws: SourceRef[] } {
  const draws: SourceRef[] = [];
  return {
    event: EVENT,
    steps: { lookup: { output: { order: { total: 49.99, lines: [1, 2] }, status: 'open' } } },
    draw: (ref) => {
      draws.push(ref);
      return ref.source === 'clock'
        ? '2026-11-30T09:00:01Z'
        : ref.source === 'random'
          ? 0.25
          : `${ref.source}-${draws.length}`;
    },
    draws,
    ...over,
  };
}

function ok(args: Record<string, unknown>, s: TemplateScope = scope()): Record<string, unknown> {
  const r = resolveArgs(args, s);
  assert.ok(r.ok, JSON.stringify(r));
  return r.value;
}

describe('resolveArgs', () => {
  it('keeps the JSON type of whole-value templates', () => {
    assert.deepEqual(
      ok({
        amount: '{{event.payload.refund_amount}}',
        vip: '{{ event.payload.vip }}',
        items: '{{event.payload.items}}',
        first: '{{ event.payload.items[0].sku }}',
        nil: '{{event.payload.nil}}',
        total: '{{ steps.lookup.output.order.total }}',
        output: '{{steps.lookup.output}}',
        subject: '{{event.subject}}',
      }),
      {
        amount: 30,
        vip: true,
        items: [{ sku: 'A-1', qty: 2 }],
        first: 'A-1',
        nil: null,
        total: 49.99,
        output: { order: { total: 49.99, lines: [1, 2] }, status: 'open' },
        subject: 'T-1001',
      },
    );
  });

  it('preserves any JSON value through a whole-value template', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const s = scope({ steps: { prev: { output: { v } } } });
        const value = ok({ x: '{{ steps.prev.output.v }}', y: ['{{event.payload.note}}'] }, s);
        assert.deepEqual(value, { x: v, y: ['damaged'] });
      }),
    );
  });

  it('interpolates strings, numbers and booleans into text', () => {
    assert.deepEqual(
      ok({
        body: 'Refund of USD {{event.payload.refund_amount}} for {{event.subject}} (vip: {{event.payload.vip}})',
      }),
      { body: 'Refund of USD 30 for T-1001 (vip: true)' },
    );
    assert.deepEqual(ok({ s: ' {{event.subject}}', plain: 'no templates }}', n: 5, b: false, z: null }), {
      s: ' T-1001',
      plain: 'no templates }}',
      n: 5,
      b: false,
      z: null,
    });
  });

  it('leaves a field absent when its whole-value template has no value', () => {
    const r = ok({
      amount: '{{event.payload.missing}}',
      nested: { a: '{{steps.later.output.x}}', b: 1 },
      keep: 'x',
    });
    assert.deepEqual(r, { nested: { b: 1 }, keep: 'x' });
    assert.equal('amount' in r, false);
  });

  it('reports unresolved templates inside text, naming the field and the path', () => {
    const r = resolveArgs(
      {
        body: 'Hi {{event.payload.name}}',
        items: [{ note: 'x {{ steps.lookup.output.nope }}' }],
        list: ['{{event.payload.missing}}'],
        obj: 'is {{event.payload.obj}}',
        nil: 'is {{event.payload.nil}}',
      },
      scope(),
    );
    assert.equal(r.ok, false);
    assert.deepEqual(!r.ok && r.problems.map((p) => [p.field, p.problem]), [
      ['body', 'unresolved'],
      ['items[0].note', 'unresolved'],
      ['list[0]', 'unresolved'],
      ['nil', 'unresolved'],
      ['obj', 'unresolved'],
    ]);
    const messages = !r.ok ? r.problems.map((p) => p.message) : [];
    assert.match(messages[0]!, /"\{\{ event\.payload\.name \}\}" has no value/);
    assert.match(messages[1]!, /steps\.lookup\.output\.nope/);
    assert.match(messages[2]!, /cannot be left out/);
    assert.match(messages[3]!, /is null, which cannot be put into text/);
    assert.match(messages[4]!, /is a mapping, which cannot be put into text; use it as the whole value/);
  });

  it('draws a source once per occurrence, in canonical key order, and only when referenced', () => {
    const s = scope();
    ok({ plain: '{{event.subject}}' }, s);
    assert.equal(s.draws.length, 0);
    const r = ok(
      {
        z: '{{clock.now}}',
        a: ['{{ id.new }}', 'at {{clock.now}} and {{clock.now}}'],
        m: { r: '{{random.float}}', e: '{{env.API_KEY}}' },
      },
      s,
    );
    assert.deepEqual(s.draws, [
      { source: 'id', name: 'new' },
      { source: 'clock', name: 'now' },
      { source: 'clock', name: 'now' },
      { source: 'env', name: 'API_KEY' },
      { source: 'random', name: 'float' },
      { source: 'clock', name: 'now' },
    ]);
    assert.deepEqual(r, {
      a: ['id-1', 'at 2026-11-30T09:00:01Z and 2026-11-30T09:00:01Z'],
      m: { e: 'env-4', r: 0.25 },
      z: '2026-11-30T09:00:01Z',
    });
  });

  it('draws nothing when any reference fails to resolve', () => {
    const s = scope();
    const r = resolveArgs({ at: '{{clock.now}}', body: 'x {{event.payload.missing}}' }, s);
    assert.equal(r.ok, false);
    assert.equal(s.draws.length, 0);
  });

  it('treats an undefined draw as a missing value', () => {
    const s = scope({ draw: () => undefined });
    assert.deepEqual(ok({ key: '{{env.UNSET}}' }, s), {});
    assert.equal(resolveArgs({ key: 'k={{env.UNSET}}' }, s).ok, false);
  });

  it('never mutates or aliases its inputs', () => {
    const args = { items: '{{event.payload.items}}', out: '{{steps.lookup.output.order}}', lit: { a: [1] } };
    const before = structuredClone(args);
    const r = ok(args);
    assert.deepEqual(args, before);
    (r.items as { sku: string }[])[0]!.sku = 'changed';
    (r.out as { total: number }).total = 0;
    (r.lit as { a: number[] }).a.push(2);
    assert.equal((EVENT.payload.items as { sku: string }[])[0]!.sku, 'A-1');
    assert.deepEqual(ok(args), ok(before));
    assert.deepEqual(args.lit, { a: [1] });
  });

  it('reads only own fields, never prototypes', () => {
    assert.deepEqual(ok({ c: '{{event.payload.constructor}}', p: '{{event.payload.__proto__}}' }), {});
    const withProto = JSON.parse('{"__proto__": {"polluted": 1}}') as Record<string, unknown>;
    const r = ok({ v: '{{event.payload.x}}' }, scope({ event: { ...EVENT, payload: { x: withProto } } }));
    assert.deepEqual(Object.keys(r.v as object), ['__proto__']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
