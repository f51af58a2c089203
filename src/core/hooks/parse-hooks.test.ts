/**
 * Hooks files are read strictly: a good file gives its hooks with their defaults; every mistake is
 * refused with its file:line:column and field path (an unknown key, a field of another scheme, a
 * secret not named as {{secret.NAME}}, a bad template, an invalid body schema, a name twice).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isKeelError } from '../errors.ts';
import { HookTemplate } from './hook-template.ts';
import { parseHooks } from './parse-hooks.ts';

const GOOD = `hooks:
  - name: helpdesk
    tenant: acme
    auth:
      scheme: hmac-sha256
      header: X-Hub-Signature-256
      prefix: "sha256="
      secret: "{{secret.HELPDESK_SECRET}}"
    body:
      type: object
      required: [ticket]
    event:
      type: refund.requested
      id: "{{headers.X-Delivery-Id}}"
      time: "{{body.created_at}}"
      subject: "ticket {{body.ticket.id}}"
      payload:
        amount_usd: "{{body.ticket.amount}}"
  - name: payments
    tenant: acme
    auth: { scheme: hmac-sha256-timestamped, header: Stripe-Signature, secret: "{{secret.PAY_SECRET}}", toleranceSeconds: 60 }
    event: { type: "{{body.type}}", id: "{{body.id}}", time: "{{body.created}}" }
    maxBodyBytes: 1000
    rateLimit: { perSecond: 5, burst: 10 }
`;

function problems(text: string): { field: string; line?: number; message: string }[] {
  try {
    parseHooks(text, 'hooks.yaml');
  } catch (e) {
    assert.ok(isKeelError(e), String(e));
    assert.equal(e.code, 'usage');
    assert.match(e.message, /^hooks\.yaml:\d+:\d+: /, 'the message starts with file:line:column');
    return e.details.problems as { field: string; line?: number; message: string }[];
  }
  return assert.fail('expected a refusal');
}

describe('parseHooks', () => {
  test('a good file gives each hook, defaults filled, secrets by name only', () => {
    const [a, b] = parseHooks(GOOD, 'hooks.yaml');
    assert.equal(a!.name, 'helpdesk');
    assert.deepEqual(a!.auth, {
      scheme: 'hmac-sha256',
      header: 'X-Hub-Signature-256',
      secret: 'HELPDESK_SECRET',
      encoding: 'hex',
      prefix: 'sha256=',
    });
    assert.equal(a!.maxBodyBytes, 256 * 1024);
    assert.deepEqual(a!.rateLimit, { perSecond: 50, burst: 100 });
    assert.ok(a!.event.id instanceof HookTemplate);
    assert.deepEqual(a!.event.id.parts, [
      { kind: 'ref', ref: { root: 'headers', name: 'x-delivery-id' }, source: 'headers.X-Delivery-Id' },
    ]);
    assert.deepEqual(b!.auth, {
      scheme: 'hmac-sha256-timestamped',
      header: 'Stripe-Signature',
      secret: 'PAY_SECRET',
      toleranceSeconds: 60,
    });
    assert.equal(b!.maxBodyBytes, 1000);
    assert.deepEqual(b!.rateLimit, { perSecond: 5, burst: 10 });
  });

  test('an unknown key is refused at its line, with the nearest field suggested', () => {
    const p = problems(
      GOOD.replace('    tenant: acme\n    auth:\n', '    tenant: acme\n    tenent: x\n    auth:\n'),
    );
    assert.deepEqual(
      p.map((x) => [x.field, x.line]),
      [['hooks[0].tenent', 4]],
    );
    assert.match(p[0]!.message, /did you mean "tenant"/);
  });

  test('a field of another scheme, a bad scheme, a secret given in clear are refused, naming the field', () => {
    const other = problems(GOOD.replace('toleranceSeconds: 60', 'prefix: "x"'));
    assert.equal(other[0]!.field, 'hooks[1].auth.prefix');
    assert.match(other[0]!.message, /not a field of the hmac-sha256-timestamped scheme/);
    assert.equal(
      problems(GOOD.replace('scheme: hmac-sha256\n', 'scheme: md5\n'))[0]!.field,
      'hooks[0].auth.scheme',
    );
    const clear = problems(GOOD.replace('"{{secret.HELPDESK_SECRET}}"', 'hunter2'));
    assert.equal(clear[0]!.field, 'hooks[0].auth.secret');
    assert.equal(clear[0]!.line, 8);
  });

  test('a bad template, a missing id, a bad body schema, a bad name and a name twice are each refused', () => {
    assert.match(
      problems(GOOD.replace('{{body.created_at}}', '{{event.time}}'))[0]!.message,
      /reads body, body.<path> or headers.<name>/,
    );
    assert.equal(
      problems(GOOD.replace('      id: "{{headers.X-Delivery-Id}}"\n', ''))[0]!.field,
      'hooks[0].event.id',
    );
    const schema = problems(GOOD.replace('type: object\n', 'type: objekt\n'));
    assert.equal(schema[0]!.field, 'hooks[0].body');
    assert.match(schema[0]!.message, /not a valid JSON Schema/);
    assert.equal(problems(GOOD.replace('name: helpdesk', 'name: Help Desk'))[0]!.field, 'hooks[0].name');
    assert.match(problems(GOOD.replace('name: payments', 'name: helpdesk'))[0]!.message, /declared twice/);
    assert.equal(
      problems(GOOD.replace('maxBodyBytes: 1000', 'maxBodyBytes: 99999999'))[0]!.field,
      'hooks[1].maxBodyBytes',
    );
    assert.equal(problems('hooks: {}\n')[0]!.field, 'hooks');
    assert.equal(problems('hook: []\n')[0]!.field, 'hook');
  });
});
