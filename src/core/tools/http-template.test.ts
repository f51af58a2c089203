import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { parseHttpTemplate } from './http-template.ts';
import { parseHttpTool } from './http-tool-spec.ts';
import { renderHttpRequest } from './render-http-request.ts';
import { secretMask } from './secret-mask.ts';

const tool = parseHttpTool(
  {
    name: 'search',
    method: 'POST',
    effect: 'external',
    url: 'http://127.0.0.1:8080/items/{{args.id}}?q={{args.q}}&n={{args.n}}',
    headers: { Authorization: 'Bearer {{secret.API_TOKEN}}', 'X-Q': '{{args.q}}' },
    body: {
      q: '{{args.q}}',
      n: '{{args.n}}',
      all: '{{args}}',
      note: 'id={{args.id}}',
      list: ['{{args.n}}', 1],
    },
    args: {
      type: 'object',
      properties: { id: { type: 'string' }, q: { type: 'string' }, n: { type: 'integer' } },
    },
    idempotencyHeader: 'Idempotency-Key',
  },
  'tools.yaml',
);

/** Strings, with the ones a URL treats specially over-represented. */
const tricky = fc.oneof(
  fc.constantFrom('.', '..', '%2e', '.%2E', '/', '../x', '?a=1', '#f', '@evil.test', '\\'),
  fc.string(),
  fc.string({ unit: 'grapheme' }),
);

const secretValue = fc.stringMatching(/^[a-f0-9]{16,40}$/);

describe('HTTP templates', () => {
  test('parse names the problem', () => {
    assert.deepEqual(parseHttpTemplate('a{{ args.x.y }}b'), {
      ok: true,
      parts: [
        { kind: 'text', text: 'a' },
        { kind: 'arg', path: ['x', 'y'] },
        { kind: 'text', text: 'b' },
      ],
    });
    assert.equal(parseHttpTemplate('{{secret.1X}}').ok, false);
    assert.equal(parseHttpTemplate('{{steps.a}}').ok, false);
  });

  test('a body leaf that is one argument keeps its type; mixed text is a string; the key goes in its header', () => {
    const r = renderHttpRequest(
      tool,
      { args: { id: 'a/b', q: 'x y', n: 3 }, secrets: new Map([['API_TOKEN', 'tok']]) },
      'sha256:key',
    );
    assert.ok(r.ok);
    assert.deepEqual(JSON.parse(r.request.body!), {
      q: 'x y',
      n: 3,
      all: { id: 'a/b', q: 'x y', n: 3 },
      note: 'id=a/b',
      list: [3, 1],
    });
    assert.equal(r.request.headers['idempotency-key'], 'sha256:key');
    assert.equal(r.request.headers.authorization, 'Bearer tok');
    assert.equal(r.request.url, 'http://127.0.0.1:8080/items/a%2Fb?q=x%20y&n=3');
  });

  test('property: any argument round-trips through the URL and never moves its origin', () => {
    fc.assert(
      fc.property(tricky, tricky, (id, q) => {
        const r = renderHttpRequest(tool, { args: { id, q }, secrets: new Map([['API_TOKEN', 't']]) });
        if (!r.ok) {
          // Only a line break in the echoed header, or a dot segment in the URL, is refused.
          assert.ok(/[\r\n\0]/.test(q) || ['.', '..'].includes(id) || ['.', '..'].includes(q), r.problem);
          return;
        }
        const u = new URL(r.request.url);
        assert.equal(u.origin, 'http://127.0.0.1:8080');
        assert.equal(decodeURIComponent(u.pathname.slice('/items/'.length)), id);
        assert.equal(u.searchParams.get('q'), q);
        assert.deepEqual(JSON.parse(r.request.body!).q, q);
      }),
    );
  });

  test('property: a secret is in the rendered request and in nothing redacted', () => {
    fc.assert(
      fc.property(secretValue, fc.string(), fc.string(), (secret, prefix, suffix) => {
        const secrets = new Map([['API_TOKEN', secret]]);
        const r = renderHttpRequest(tool, { args: { id: 'x', q: prefix }, secrets });
        fc.pre(r.ok);
        assert.ok(r.ok && r.request.headers.authorization === `Bearer ${secret}`);
        // Whatever a server echoes back, redacted, never holds the secret.
        const echoed = `${prefix}${secret}${suffix}${secret}`;
        const mask = secretMask(secrets);
        assert.ok(!mask.text(echoed).includes(secret));
        const value = { [echoed]: [echoed, { k: echoed }], n: 1 };
        assert.ok(!JSON.stringify(mask.value(value)).includes(secret));
        // And nothing but the request names it: the spec holds only its name.
        assert.ok(!JSON.stringify(tool).includes(secret));
      }),
    );
  });

  test('property: a secret is masked plain and percent-encoded, as a URL carries it', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 12 }).filter((v) => !/[[\] a-z]/.test(v)),
        fc.string(),
        (secret, around) => {
          const secrets = new Map([['API_TOKEN', secret]]);
          const text = `${around}${secret}/${encodeURIComponent(secret)}${around}`;
          const out = secretMask(secrets).text(text);
          assert.ok(!out.includes(secret) && !out.includes(encodeURIComponent(secret)), out);
        },
      ),
    );
  });

  test('an argument "." or ".." in the URL is refused: it would move the path', () => {
    for (const id of ['.', '..']) {
      const r = renderHttpRequest(tool, { args: { id, q: 'x' }, secrets: new Map([['API_TOKEN', 't']]) });
      assert.equal(r.ok, false);
      assert.ok(!r.ok && r.field === 'url');
    }
  });

  test('a header value with a line break is refused, naming the header', () => {
    const r = renderHttpRequest(tool, {
      args: { q: 'a\r\nX-Evil: 1' },
      secrets: new Map([['API_TOKEN', 't']]),
    });
    assert.deepEqual(r, { ok: false, field: 'headers.X-Q', problem: 'the rendered value has a line break' });
  });
});
