import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isKeelError } from '../errors.ts';
import { parseHttpTool, parseHttpTools } from './http-tool-spec.ts';

const ok = {
  name: 'create_ticket',
  description: 'Opens a ticket',
  method: 'POST',
  url: 'https://api.example.test/v1/tickets/{{args.queue}}',
  headers: { Authorization: 'Bearer {{secret.TICKETS_TOKEN}}' },
  body: { title: '{{args.title}}', priority: '{{args.priority}}' },
  args: {
    type: 'object',
    properties: { queue: { type: 'string' }, title: { type: 'string' }, priority: { type: 'integer' } },
    required: ['queue', 'title'],
  },
  result: { type: 'object', required: ['id'] },
  effect: 'write',
  idempotencyHeader: 'Idempotency-Key',
  cost: { fixedUsd: 0.01, fromResult: 'usage.cost_usd' },
  timeoutMs: 500,
};

/** The error a declaration gets, as [message, details.file, details.tool, details.field]. */
function refusal(entry: unknown): [string, unknown, unknown, unknown] {
  try {
    parseHttpTool(entry, 'tools.yaml');
  } catch (e) {
    assert.ok(isKeelError(e), String(e));
    return [e.message, e.details.file, e.details.tool, e.details.field];
  }
  assert.fail('expected a refusal');
}

describe('parseHttpTool', () => {
  test('a full declaration becomes a spec with its descriptor, templates, limits and secret names', () => {
    const s = parseHttpTool(ok, 'tools.yaml');
    assert.equal(s.descriptor.name, 'create_ticket');
    assert.equal(s.descriptor.effect, 'write');
    assert.equal(s.descriptor.idempotent, true, 'idempotent by default with an idempotency header');
    assert.deepEqual(s.descriptor.cost, { fixedUsd: 0.01, fromResult: 'usage.cost_usd' });
    assert.deepEqual(s.descriptor.result, { type: 'object', required: ['id'] });
    assert.equal(s.origin, 'https://api.example.test');
    assert.equal(s.method, 'POST');
    assert.equal(s.timeoutMs, 500);
    assert.equal(s.retries, 2);
    assert.equal(s.maxResponseBytes, 1_048_576);
    assert.deepEqual(s.secrets, ['TICKETS_TOKEN']);
    assert.equal(s.idempotencyHeader, 'Idempotency-Key');
    assert.equal(JSON.stringify(s).includes('TICKETS_TOKEN}}'), false, 'templates are parsed');
  });

  test('a GET tool is a read and idempotent by default; any other method must say its effect', () => {
    const g = parseHttpTool({ name: 'get_order', url: 'http://127.0.0.1:9/orders' }, 'f.yaml');
    assert.deepEqual([g.descriptor.effect, g.descriptor.idempotent], ['read', true]);
    const [msg, , tool, field] = refusal({ name: 'x', method: 'POST', url: 'http://h/x' });
    assert.match(msg, /^tools\.yaml: tool x: effect: required for a POST tool/);
    assert.deepEqual([tool, field], ['x', 'effect']);
  });

  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ['an unknown field', { ...ok, verb: 'POST' }, 'verb', /not a field of an HTTP tool/],
    ['a file: URL', { ...ok, url: 'file:///etc/passwd' }, 'url', /http:\/\/ or https:\/\//],
    ['a templated host', { ...ok, url: 'https://{{args.queue}}/x' }, 'url', /host is written out/],
    ['credentials in the URL', { ...ok, url: 'https://u:p@h.test/x' }, 'url', /credentials/],
    ['an unknown template root', { ...ok, url: 'https://h.test/{{env.HOME}}' }, 'url', /only args/],
    [
      'an argument the schema lacks',
      { ...ok, url: 'https://h.test/{{args.nope}}' },
      'url',
      /nope is not a property/,
    ],
    ['an unclosed template', { ...ok, url: 'https://h.test/{{args.queue' }, 'url', /never closed/],
    ['a bad header name', { ...ok, headers: { 'Bad Header': 'x' } }, 'headers.Bad Header', /header name/],
    ['a header Keel sets', { ...ok, headers: { Host: 'x' } }, 'headers.Host', /sets this header/],
    ['a GET with a body', { ...ok, method: 'GET', effect: 'read', body: 'x' }, 'body', /no body/],
    ['a bad method', { ...ok, method: 'TRACE' }, 'method', /one of GET/],
    ['a bad effect', { ...ok, effect: 'delete' }, 'effect', /one of read/],
    ['a timeout out of bounds', { ...ok, timeoutMs: 0 }, 'timeoutMs', /from 1 to 120000/],
    ['too many retries', { ...ok, retries: 50 }, 'retries', /from 0 to 5/],
    ['a negative cost', { ...ok, cost: { fixedUsd: -1 } }, 'cost.fixedUsd', />= 0/],
    ['an unknown cost key', { ...ok, cost: { perCall: 1 } }, 'cost.perCall', /fixedUsd/],
    ['cost.fixed', { ...ok, cost: { fixed: 5 } }, 'cost.fixed', /did you mean "fixedUsd"\?/],
    ['a cost with a third decimal', { ...ok, cost: 0.001 }, 'cost', /at most 2 decimals/],
    ['a cost argument path', { ...ok, cost: { fromArg: 'a.b' } }, 'cost.fromArg', /top-level argument/],
    [
      'a cost argument that is not a number',
      { ...ok, cost: { fromArg: 'title' } },
      'cost.fromArg',
      /args\.title must be declared type number/,
    ],
    [
      'a destructive read',
      { ...ok, method: 'GET', effect: 'read', body: undefined, destructive: true },
      'destructive',
      /a read tool changes nothing/,
    ],
    ['a DELETE that reads', { ...ok, method: 'DELETE', effect: 'read', body: undefined }, 'effect', /DELETE/],
    [
      'an idempotent POST the server cannot recognise a repeat of',
      { ...ok, idempotencyHeader: undefined, idempotent: true },
      'idempotent',
      /set idempotencyHeader/,
    ],
    ['args not an object schema', { ...ok, args: { type: 'string' } }, 'args', /type "object"/],
    ['a non-boolean flag', { ...ok, destructive: 'yes' }, 'destructive', /true or false/],
    [
      'the idempotency header also in headers',
      { ...ok, headers: { 'idempotency-key': 'x' } },
      'idempotencyHeader',
      /sets Idempotency-Key itself/,
    ],
    ['a bad name', { ...ok, name: '1 bad' }, 'name', /expected a name/],
    [
      'a reconcile check that writes',
      { ...ok, reconcile: { method: 'POST', url: 'https://h.test/x' } },
      'reconcile.method',
      /only reads: GET/,
    ],
    [
      'a reconcile check with a templated host',
      { ...ok, reconcile: { url: 'https://{{idempotencyKey}}/x' } },
      'reconcile.url',
      /host is written out/,
    ],
    [
      'a bad notFound',
      { ...ok, reconcile: { url: 'https://h.test/x', notFound: [200] } },
      'reconcile.notFound',
      /300 to 599/,
    ],
    [
      'a simulation reading a secret',
      { ...ok, simulate: { id: '{{ secret.TICKETS_TOKEN }}' } },
      'simulate',
      /never sees a secret/,
    ],
  ];
  for (const [what, entry, field, problem] of cases) {
    test(`refuses ${what}, naming the file, the tool and the field`, () => {
      const [msg, file, , f] = refusal(entry);
      assert.equal(file, 'tools.yaml');
      assert.equal(f, field);
      assert.ok(msg.startsWith(`tools.yaml: tool ${entry.name}: ${field}: `), msg);
      assert.match(msg, problem);
    });
  }

  test('accepts the cost forms a tool pack accepts: a USD amount per call is {fixedUsd}', () => {
    assert.deepEqual(parseHttpTool({ ...ok, cost: 5 }, 'f.yaml').descriptor.cost, { fixedUsd: 5 });
    assert.deepEqual(parseHttpTool({ ...ok, cost: 19.99 }, 'f.yaml').descriptor.cost, { fixedUsd: 19.99 });
    const refund = {
      ...ok,
      args: {
        type: 'object',
        properties: { queue: { type: 'string' }, amount: { type: 'number' } },
        required: ['queue', 'amount'],
      },
      body: { amount: '{{args.amount}}' },
      cost: { fromArg: 'amount' },
    };
    assert.deepEqual(parseHttpTool(refund, 'f.yaml').descriptor.cost, { fromArg: 'amount' });
  });

  test('an idempotent POST holds with the idempotency key sent in the header or the request', () => {
    assert.equal(parseHttpTool({ ...ok, idempotent: true }, 'f.yaml').descriptor.idempotent, true);
    const keyInBody = {
      ...ok,
      idempotencyHeader: undefined,
      idempotent: true,
      body: { key: '{{idempotencyKey}}' },
    };
    assert.equal(parseHttpTool(keyInBody, 'f.yaml').descriptor.idempotent, true);
    const put = { ...ok, method: 'PUT', idempotencyHeader: undefined, idempotent: true };
    assert.equal(parseHttpTool(put, 'f.yaml').descriptor.idempotent, true, 'a PUT is idempotent by HTTP');
    const plain = parseHttpTool({ ...ok, idempotencyHeader: undefined }, 'f.yaml');
    assert.equal(plain.descriptor.idempotent, false, 'by default not, without the header');
  });

  test('parseHttpTools needs a list and unique names', () => {
    assert.throws(() => parseHttpTools({ a: 1 }, 'f.yaml'), /f\.yaml: tools: expected a list/);
    assert.throws(() => parseHttpTools([ok, ok], 'f.yaml'), /tool create_ticket: name: declared twice/);
    assert.throws(() => parseHttpTools([ok, 7], 'f.yaml'), /f\.yaml: tool tools\[1\]: \(entry\)/);
    assert.equal(parseHttpTools([ok], 'f.yaml').length, 1);
  });
});
