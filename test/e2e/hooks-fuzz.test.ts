/**
 * The hooks endpoint fuzzed (issue 29 §4), bounded: fast-check sends `POST /hooks/<name>` with
 * arbitrary paths, bodies (odd text, deep or huge JSON, bytes that are not UTF-8) and signature
 * headers (garbage, truncated, another body's), and correctly signed arbitrary JSON and form bodies
 * (`application/x-www-form-urlencoded`, odd escapes and charsets). Every answer is a success or
 * a named refusal (details.reason) — never a 5xx — and nothing but a correctly signed delivery
 * that maps to an event ever names one: the event index holds exactly the ids answered 200/201.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { createKeel, type Keel } from '../../src/app/index.ts';
import { parseHooks } from '../../src/core/hooks/index.ts';
import { createServerApp } from '../../src/server/app.ts';
import { deploy } from '../../src/testing/index.ts';
import { nested, oddString } from '../helpers/input-grammars.ts';

const SECRET = 'fuzz-secret-7c1e';
const hooks = parseHooks(
  `hooks:
  - name: gh
    tenant: acme
    auth: { scheme: hmac-sha256, header: X-Sig, prefix: "sha256=", secret: "{{secret.S}}" }
    body: { type: object, required: [id], properties: { id: { type: string, minLength: 1, maxLength: 100 } } }
    event: { type: fuzzed, id: "{{body.id}}", time: "{{body.time}}", subject: "{{body.s}}", payload: { all: "{{body}}", h: "{{headers.x-extra}}" } }
    maxBodyBytes: 20000
    rateLimit: { perSecond: 100000, burst: 100000 }
  - name: stamp
    tenant: acme
    auth: { scheme: hmac-sha256-timestamped, header: X-Stamp, secret: "{{secret.S}}" }
    event: { type: stamped, id: "{{body.id}}", time: "{{body.time}}" }
`,
  'fuzz.hooks.yaml',
).map((spec) => ({ spec, secret: SECRET }));

let keel: Keel;
let app: ReturnType<typeof createServerApp>;
const accepted = new Set<string>();
before(async () => {
  keel = createKeel({ store: ':memory:', metrics: true });
  await deploy(
    keel,
    'acme',
    'id: fz\nversion: 1\nstatus: LIVE\ntriggers: [{event: fuzzed}]\nsteps:\n  - {name: n, tool: core.noop}\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
  );
  app = createServerApp(keel, {
    log: (e) => assert.fail(`the server logged an unexpected error: ${String(e)}`),
    hooks,
  });
});
after(async () => {
  await app.host.drain();
  await keel.close();
});

const sign = (body: Uint8Array | string) =>
  `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;

async function send(path: string, body: Uint8Array | string, headers: Record<string, string>) {
  const res = await app.app.request(path, { method: 'POST', headers, body });
  const text = await res.text();
  assert.ok(res.status < 500, `${path}: ${res.status} ${text.slice(0, 300)}`);
  const json = JSON.parse(text) as {
    error?: string;
    details?: { reason?: string };
    eventId?: string;
    source?: string;
  };
  if (res.status >= 400) {
    assert.equal(typeof json.error, 'string');
    // A hook's own refusals say why; /hooks/ with no name is no route at all.
    if (res.status !== 409 && path !== '/hooks/')
      assert.equal(typeof json.details?.reason, 'string', text.slice(0, 300));
    assert.doesNotMatch(text, new RegExp(SECRET));
  } else if (json.source === 'hook:gh') accepted.add(json.eventId!);
  return res.status;
}

const bodyText = fc.oneof(
  oddString,
  fc.json(),
  fc.constantFrom(
    '',
    '{',
    '[]',
    'null',
    '{"id":"a","id":"b"}',
    '{"id":9007199254740993}',
    JSON.stringify(nested(80)),
  ),
  fc.constant('x'.repeat(20_001)),
);
// A header value must be one an HTTP client can send (visible ASCII and tabs): the rest is the
// client refusing, not the server.
const sigHeader = fc.oneof(
  oddString.map((x) => x.replace(/[^\t\x20-\x7e]/g, '?')),
  fc.constant('sha256='),
  fc
    .string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 })
    .map((h) => `sha256=${h}`),
  fc.constant(`t=1,v1=${'0'.repeat(64)}`),
);

test('arbitrary deliveries, paths and headers: a success or a named refusal, never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('/hooks/gh', '/hooks/stamp', '/hooks/none', '/hooks/GH', '/hooks/gh%2F..', '/hooks/'),
      bodyText,
      fc.option(sigHeader, { nil: undefined }),
      fc.boolean(),
      async (path, body, sig, raw) => {
        const bytes = raw
          ? Uint8Array.from(Buffer.from(body, 'utf8').map((b, i) => (i % 7 === 0 ? 0xff : b)))
          : body;
        await send(path, bytes, {
          ...(sig !== undefined ? { 'X-Sig': sig, 'X-Stamp': sig } : {}),
          'Content-Type': 'application/json',
        });
      },
    ),
    { numRuns: 150, endOnFailure: true },
  );
});

test('correctly signed arbitrary form bodies: accepted, or refused 400/413/422 naming the field, never a 5xx', async () => {
  const part = fc.oneof(
    oddString,
    fc.constantFrom('id', 'time', 's', '2026-01-31T12:00:00Z', '__proto__', 'a[b]'),
  );
  const encoded = fc.array(fc.tuple(part, part, fc.boolean()), { maxLength: 8 }).map((pairs) =>
    pairs
      .map(([k, v, plain]) => {
        const enc = (x: string) => {
          try {
            return encodeURIComponent(x).replace(/%20/g, '+');
          } catch {
            return x; // a lone surrogate: sent raw, for the reader to refuse or take
          }
        };
        return plain ? enc(k) : `${enc(k)}=${enc(v)}`;
      })
      .join('&'),
  );
  const raw = fc.oneof(
    oddString,
    fc.constantFrom('id=%', 'id=%zz', 'id=%C3', '&&&', '=', 'id=a&id=b', `id=${'x'.repeat(20_001)}`),
  );
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(encoded, raw),
      fc.constantFrom('', '; charset=utf-8', '; charset=latin1', ';charset="UTF-8"'),
      async (body, params) => {
        const status = await send('/hooks/gh', body, {
          'X-Sig': sign(body),
          'Content-Type': `application/x-www-form-urlencoded${params}`,
        });
        assert.ok([200, 201, 400, 409, 413, 422].includes(status), String(status));
      },
    ),
    { numRuns: 150, endOnFailure: true },
  );
});

test('correctly signed arbitrary JSON: accepted, or refused 400/413/422 naming the field, never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.record(
        {
          id: fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.integer(), oddString),
          time: fc.oneof(
            fc.constant('2026-01-31T12:00:00Z'),
            fc.integer({ min: -5, max: 2 ** 40 }),
            oddString,
          ),
          s: fc.oneof(oddString, fc.integer()),
          extra: fc.jsonValue(),
        },
        { requiredKeys: [] },
      ),
      fc.option(oddString, { nil: undefined }),
      async (value, extra) => {
        const body = JSON.stringify(value);
        const status = await send('/hooks/gh', body, {
          'X-Sig': sign(body),
          ...(extra !== undefined && /^[\t\x20-\x7e]*$/.test(extra) ? { 'X-Extra': extra } : {}),
        });
        assert.ok([200, 201, 400, 409, 413, 422].includes(status), String(status));
      },
    ),
    { numRuns: 150, endOnFailure: true },
  );
  // Nothing but an accepted delivery named an event: the index holds exactly those.
  for (const id of accepted) assert.ok(await keel.events.delivered('acme', 'hook:gh', id), id);
  assert.equal(await keel.events.delivered('acme', 'hook:none', 'a'), undefined);
  const runs = (await keel.runs.list('acme', { limit: 1000 })).runs.filter((r) => r.workflowId === 'fz');
  assert.equal(runs.length, accepted.size, 'one run per accepted delivery, none for a refusal');
});
