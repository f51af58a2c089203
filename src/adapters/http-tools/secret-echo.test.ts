/**
 * An HTTP tool whose service echoes the secret it was sent (issue 26): a real node:http server on
 * 127.0.0.1 answers with the Authorization token in each encoding a service may use — JSON-escaped
 * with `\/` (PHP's default), `\u` escapes, base64, base64url, HTML character references,
 * percent-encoding, JSON inside a JSON string — as JSON, as text, as a key, and in a 4xx error
 * body; and an all-digit secret echoed as a JSON number. In every case neither the secret nor the
 * encoded echo is in the ledger bytes, the history, or the SQLite file and its WAL.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createKeel, type Keel } from '../../app/index.ts';
import { parseHttpTool } from '../../core/tools/index.ts';
import { deploy } from '../../testing/index.ts';
import { httpTool } from './http-tool.ts';

const TOKEN = 'sk/CANARY+shop/tok==';
const PIN = '8675309123';

const units = (s: string) => Array.from({ length: s.length }, (_, i) => s.charCodeAt(i));

/** How the service writes the secret back, by name. */
const ENCODE: Record<string, (s: string) => string> = {
  plain: (s) => s,
  'php-json': (s) => JSON.stringify(s).slice(1, -1).replace(/\//g, '\\/'),
  'u-escapes': (s) =>
    units(s)
      .map((u) => `\\u${u.toString(16).padStart(4, '0')}`)
      .join(''),
  base64: (s) => Buffer.from(s).toString('base64'),
  base64url: (s) => Buffer.from(`=${s}`).toString('base64url'),
  'html-entities': (s) => Array.from(s, (c) => (/[a-z]/i.test(c) ? c : `&#${c.codePointAt(0)};`)).join(''),
  'html-hex': (s) => Array.from(s, (c) => `&#x${c.codePointAt(0)!.toString(16)};`).join(''),
  percent: (s) => encodeURIComponent(s),
  'json-in-json': (s) => JSON.stringify(JSON.stringify({ token: s })).slice(1, -1),
};

/** What the service answers for `/echo/<encoding>/<as>`, with the token it was sent. */
function answer(enc: string, as: string, token: string): { status: number; type: string; body: string } {
  const e = ENCODE[enc]!(token);
  // In JSON text the encoded form is written raw (as a service builds it), not escaped again.
  if (as === 'json') return { status: 200, type: 'application/json', body: `{"echo": "${e}", "ok": true}` };
  if (as === 'key') return { status: 200, type: 'application/json', body: `{"${e}": 1}` };
  if (as === 'text') return { status: 200, type: 'text/html', body: `<p>you sent ${e}</p>` };
  return { status: 400, type: 'application/json', body: `{"error": "bad token ${e}"}` };
}

const server = createServer((req, res) => {
  const [, , enc = '', as = ''] = (req.url ?? '').split('?')[0]!.split('/');
  if (enc === 'pin') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(`{"pin": ${req.headers['x-pin']}, "pins": [${req.headers['x-pin']}]}`);
  }
  const token = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
  const a = answer(enc, as, token);
  res.writeHead(a.status, { 'content-type': a.type });
  res.end(a.body);
});
const dir = mkdtempSync(join(tmpdir(), 'keel-secret-echo-'));
const path = join(dir, 'keel.db');
let keel: Keel;
let n = 0;

before(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const env = (name: string) => ({ SHOP_TOKEN: TOKEN, PIN })[name];
  const args = {
    type: 'object',
    properties: { enc: { type: 'string' }, as: { type: 'string' } },
    required: ['enc', 'as'],
  };
  const echo = httpTool(
    parseHttpTool(
      {
        name: 'echo',
        args,
        url: `${base}/echo/{{args.enc}}/{{args.as}}`,
        headers: { Authorization: 'Bearer {{secret.SHOP_TOKEN}}', 'X-Pin': '{{secret.PIN}}' },
        retries: 0,
      },
      'tools.yaml',
    ),
    { env },
  );
  keel = createKeel({ store: path, tools: [echo] });
  await deploy(
    keel,
    'acme',
    `id: echo
version: 1
status: AUTONOMOUS
triggers: [{ event: go }]
steps:
  - { name: call, tool: echo, args: { enc: "{{event.payload.enc}}", as: "{{event.payload.as}}" } }
limits: { maxSteps: 1, maxCostUsd: 1 }
`,
  );
});
after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

/** Runs one echo and returns the run's stored ledger bytes and history, as text. */
async function echo(enc: string, as: string) {
  const run = await keel.runs.start('acme', 'echo', {
    id: `e${++n}`,
    type: 'go',
    time: '2026-01-01T00:00:00Z',
    payload: { enc, as },
  });
  const entries = await keel.runs.entries('acme', run.runId);
  const ledger = (await keel.runs.storedEntries('acme', run.runId))
    .map((e) => Buffer.from(e.payload).toString('utf8'))
    .join('\n');
  const history = JSON.stringify(await keel.runs.history('acme', run.runId));
  return { run, entries, ledger, history };
}

/** Neither the secret nor the form it was echoed in. */
function assertAbsent(where: string, text: string, secret: string, echoed: string) {
  assert.ok(!text.includes(secret), `${where} holds the secret`);
  assert.ok(!text.includes(echoed), `${where} holds the echo ${echoed}`);
}

describe('a service that echoes the secret it was sent (issue 26)', () => {
  for (const enc of Object.keys(ENCODE))
    for (const as of ['json', 'key', 'text', 'error'])
      test(`echoed ${enc}, ${as === 'error' ? 'in a 400 error body' : `as ${as}`}: masked everywhere`, async () => {
        const { run, entries, ledger, history } = await echo(enc, as);
        assert.equal(run.status, as === 'error' ? 'failed' : 'completed', run.reason);
        const echoed = ENCODE[enc]!(TOKEN);
        // The raw JSON form of an escape is what the ledger would hold if the decoded value leaked.
        for (const [where, text] of [
          ['the ledger', ledger],
          ['the history', history],
          ['the entries', JSON.stringify(entries)],
        ] as const)
          assertAbsent(where, text, TOKEN, echoed);
        assert.match(ledger + history, /\[secret SHOP_TOKEN\]/);
      });

  test('an all-digit secret echoed as a JSON number is masked (it was stored as is)', async () => {
    const { run, ledger, history } = await echo('pin', 'json');
    assert.equal(run.status, 'completed', run.reason);
    assert.ok(!ledger.includes(PIN) && !history.includes(PIN));
    assert.match(ledger, /"pin":"\[secret PIN\]","pins":\["\[secret PIN\]"\]/);
  });

  test('the store file and its WAL hold no secret, in any of the forms echoed', async () => {
    await keel.close();
    for (const f of [path, `${path}-wal`]) {
      let bytes: string;
      try {
        bytes = readFileSync(f).toString('latin1');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw e;
      }
      for (const enc of Object.keys(ENCODE)) assertAbsent(f, bytes, TOKEN, ENCODE[enc]!(TOKEN));
      assert.ok(!bytes.includes(PIN), `${f} holds the PIN`);
    }
  });
});
