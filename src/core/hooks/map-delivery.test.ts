/**
 * A delivery's body and headers mapped to its canonical event: templates keep JSON types, Unix
 * seconds become an RFC 3339 time, the source names the hook; a body that is not JSON, fails the
 * schema, or leaves a mapped field empty is refused naming the field.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mapDelivery, readDeliveryBody } from './map-delivery.ts';
import { parseHooks } from './parse-hooks.ts';

const [hook] = parseHooks(
  `hooks:
  - name: helpdesk
    tenant: acme
    auth: { scheme: shared-secret, header: X-Token, secret: "{{secret.T}}" }
    body:
      type: object
      required: [ticket, created]
      properties: { ticket: { type: object, required: [id], properties: { amount: { type: number } } } }
    event:
      type: refund.requested
      id: "{{headers.x-delivery}}"
      time: "{{body.created}}"
      subject: "ticket-{{body.ticket.id}}"
      payload: { amount_usd: "{{body.ticket.amount}}", note: "{{body.note}}", tags: ["{{body.ticket.id}}"] }
`,
  'hooks.yaml',
);
const headers = new Map([['x-delivery', 'd-1']]);

test('a delivery maps to its event: types kept, Unix seconds as RFC 3339, absent optional leaves dropped', () => {
  const r = mapDelivery(hook!, { ticket: { id: 42, amount: 12.5 }, created: 1764900000 }, headers);
  assert.deepEqual(r, {
    ok: true,
    event: {
      id: 'd-1',
      type: 'refund.requested',
      source: 'hook:helpdesk',
      subject: 'ticket-42',
      payload: { amount_usd: 12.5, tags: [42] },
      time: '2025-12-05T02:00:00Z',
    },
  });
});

test('schema failures, empty mappings and bad times are refused naming the field', () => {
  const schema = mapDelivery(hook!, { ticket: { id: 1, amount: 'ten' }, created: 1 }, headers);
  assert.equal(schema.ok, false);
  assert.equal(!schema.ok && schema.reason, 'body_schema');
  assert.equal(!schema.ok && schema.field, 'ticket.amount');
  const noId = mapDelivery(hook!, { ticket: { id: 1 }, created: 1 }, new Map());
  assert.deepEqual(!noId.ok && [noId.reason, noId.field], ['mapping_failed', 'event.id']);
  assert.match(!noId.ok ? noId.message : '', /\{\{headers.x-delivery\}\} finds nothing/);
  const badTime = mapDelivery(hook!, { ticket: { id: 1 }, created: '2026-02-30T00:00:00Z' }, headers);
  assert.deepEqual(!badTime.ok && [badTime.reason, badTime.field], ['mapping_failed', 'event.time']);
  assert.match(!badTime.ok ? badTime.message : '', /February 2026 has 28 days/);
});

test('a body that is not UTF-8, not JSON, has a key twice or an unsafe integer is body_invalid', () => {
  for (const bytes of [
    Buffer.from([0xff, 0xfe]),
    Buffer.from('{"a":'),
    Buffer.from('{"a":1,"a":2}'),
    Buffer.from('{"a":9007199254740993}'),
  ]) {
    const r = readDeliveryBody(bytes);
    assert.equal(r.ok, false, bytes.toString());
    assert.equal(!r.ok && r.reason, 'body_invalid');
  }
  assert.deepEqual(readDeliveryBody(Buffer.from('[1]')), { ok: true, value: [1] });
});

const FORM = 'application/x-www-form-urlencoded';

test('a form-encoded body reads as the object of its fields: + and %XX decoded, a repeated name a list', () => {
  const r = readDeliveryBody(
    Buffer.from('ticket=T-7&amount=12.50&note=caf%C3%A9+au+lait&tag=a&tag=b&empty=&flag&a%5Bb%5D=1&&'),
    `${FORM}; charset=UTF-8`,
  );
  assert.deepEqual(r, {
    ok: true,
    value: {
      ticket: 'T-7',
      amount: '12.50',
      note: 'café au lait',
      tag: ['a', 'b'],
      empty: '',
      flag: '',
      'a[b]': '1',
    },
  });
  assert.deepEqual(readDeliveryBody(Buffer.from(''), FORM), { ok: true, value: {} });
  // The same bytes without the form Content-Type are read as JSON (and are not).
  assert.equal(readDeliveryBody(Buffer.from('ticket=T-7'), 'application/json').ok, false);
  assert.equal(readDeliveryBody(Buffer.from('ticket=T-7')).ok, false);
  // A field holding JSON stays text; `__proto__` is an own key like any other.
  assert.deepEqual(readDeliveryBody(Buffer.from('payload=%7B%22a%22%3A1%7D&__proto__=x'), FORM), {
    ok: true,
    value: Object.fromEntries([
      ['payload', '{"a":1}'],
      ['__proto__', 'x'],
    ]),
  });
});

test('a malformed form body is body_invalid naming the pair; another charset is refused', () => {
  for (const [bytes, why] of [
    ['a=%zz', /pair 1 .*malformed %-escape/],
    ['a=1&b=%C3', /pair 2 /],
    ['a=%FF', /not UTF-8/],
  ] as const) {
    const r = readDeliveryBody(Buffer.from(bytes), FORM);
    assert.equal(!r.ok && r.reason, 'body_invalid', bytes);
    assert.match(!r.ok ? r.message : '', why);
  }
  const latin = readDeliveryBody(Buffer.from('a=1'), `${FORM}; charset=iso-8859-1`);
  assert.match(!latin.ok ? latin.message : '', /read as UTF-8, not charset "iso-8859-1"/);
  assert.equal(!readDeliveryBody(Buffer.from([0x61, 0x3d, 0xff]), FORM).ok, true, 'raw bytes not UTF-8');
});

test('a form delivery maps like a JSON one: the body schema and the templates read its fields', () => {
  const [form] = parseHooks(
    `hooks:
  - name: forms
    tenant: acme
    auth: { scheme: shared-secret, header: X-Token, secret: "{{secret.T}}" }
    body: { type: object, required: [ticket, id], properties: { amount: { type: string, pattern: "^[0-9]+$" } } }
    event: { type: form.sent, id: "{{body.id}}", time: "2026-01-31T12:00:00Z", subject: "{{body.ticket}}", payload: { amount: "{{body.amount}}", tags: "{{body.tag}}" } }
`,
    'hooks.yaml',
  );
  const body = readDeliveryBody(Buffer.from('id=f-1&ticket=T-9&amount=30&tag=x&tag=y'), FORM);
  assert.ok(body.ok);
  const r = mapDelivery(form!, body.value, new Map());
  assert.deepEqual(r.ok && r.event, {
    id: 'f-1',
    type: 'form.sent',
    source: 'hook:forms',
    subject: 'T-9',
    payload: { amount: '30', tags: ['x', 'y'] },
    time: '2026-01-31T12:00:00Z',
  });
  const bad = readDeliveryBody(Buffer.from('id=f-2&ticket=T-9&amount=thirty'), FORM);
  const refused = mapDelivery(form!, bad.ok ? bad.value : {}, new Map());
  assert.deepEqual(!refused.ok && [refused.reason, refused.field], ['body_schema', 'amount']);
});
