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
