/**
 * The hooks commands and `keel serve --hooks` through the real CLI: `keel hooks ls` finds the
 * working directory's keel.hooks.yaml and says whether each secret is set (never its value);
 * `keel hooks test` verifies the support desk's sample delivery and prints its event (exit 0), a
 * wrong secret is exit 5, an unsigned sample is mapped but not verified, a form-encoded sample is
 * read as fields when its headers say so; neither opens a store. A
 * hooks file with a mistake is exit 2 naming file:line and field; `keel serve` refuses to start
 * without a hook's secret, and with it serves the hook: the signed sample starts one run, a retry
 * none.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createKeel } from '../../src/app/index.ts';
import { deploy } from '../../src/testing/index.ts';
import { EXAMPLE, failJson, okJson, Sandbox } from '../helpers/keel-cli.ts';
import { KeelServer } from '../helpers/keel-server.ts';

const SECRET = 'example-secret-change-me';
const sandbox = new Sandbox('hooks');
after(() => sandbox.remove());
copyFileSync(join(EXAMPLE, 'keel.hooks.yaml'), join(sandbox.dir, 'keel.hooks.yaml'));
const sample = join(EXAMPLE, 'hooks', 'helpdesk-refund.json');
const headers = join(EXAMPLE, 'hooks', 'helpdesk-refund.headers.yaml');

test('keel hooks ls lists the working directory’s hooks file, whether each secret is set, never its value', () => {
  const unset = okJson<{
    hooks: { name: string; path: string; tenant: string; secret: string; secretSet: boolean }[];
  }>(sandbox.keel(['hooks', 'ls', '--json'], { env: { HELPDESK_WEBHOOK_SECRET: undefined } }));
  assert.deepEqual(
    unset.hooks.map((h) => [h.name, h.path, h.tenant, h.secret, h.secretSet]),
    [['helpdesk', '/hooks/helpdesk', 'acme', 'HELPDESK_WEBHOOK_SECRET', false]],
  );
  const set = sandbox.keel(['hooks', 'ls', '--json'], { env: { HELPDESK_WEBHOOK_SECRET: SECRET } });
  assert.equal(okJson<{ hooks: { secretSet: boolean }[] }>(set).hooks[0]!.secretSet, true);
  assert.doesNotMatch(set.stdout + set.stderr, new RegExp(SECRET));
  assert.equal(existsSync(sandbox.store()), false, 'no store was opened or created');
});

test('keel hooks test verifies the sample, prints its event; a wrong secret is exit 5; unsigned is mapped, not verified', () => {
  const env = { HELPDESK_WEBHOOK_SECRET: SECRET };
  const ok = okJson<{ signature: string; event: Record<string, unknown> }>(
    sandbox.keel(['hooks', 'test', 'helpdesk', sample, '--headers', headers, '--json'], { env }),
  );
  assert.equal(ok.signature, 'verified');
  assert.deepEqual(ok.event, {
    id: 'dlv-2001-a',
    type: 'refund.requested',
    source: 'hook:helpdesk',
    subject: 'T-2001',
    payload: { refund_amount: 30, currency: 'USD', reason: 'damaged item' },
    time: '2026-11-30T10:00:00Z',
  });
  const wrong = sandbox.keel(['hooks', 'test', 'helpdesk', sample, '--headers', headers, '--json'], {
    env: { HELPDESK_WEBHOOK_SECRET: 'not-the-secret' },
  });
  assert.equal(wrong.code, 5, wrong.stderr);
  assert.equal(JSON.parse(wrong.stdout).refusal.reason, 'signature_mismatch');
  assert.doesNotMatch(wrong.stdout, /not-the-secret/);
  const idOnly = sandbox.write('id-only.headers.yaml', 'X-Helpdesk-Delivery: dlv-2001-a\n');
  const unsigned = okJson<{ signature: string; event: { id?: string } }>(
    sandbox.keel(['hooks', 'test', 'helpdesk', sample, '--headers', idOnly, '--json'], { env }),
  );
  assert.equal(unsigned.signature, 'unsigned');
  assert.equal(unsigned.event.id, 'dlv-2001-a');
  const unmapped = sandbox.keel(['hooks', 'test', 'helpdesk', sample, '--json'], { env });
  assert.equal(unmapped.code, 2, 'without the delivery id header it maps to no event');
  assert.deepEqual(JSON.parse(unmapped.stdout).mapping.field, 'event.id');
  assert.equal(existsSync(sandbox.store()), false, 'nothing was started or stored');
});

test('keel hooks test reads a form-encoded sample as fields when its headers name that Content-Type', () => {
  const hooks = sandbox.write(
    'forms.hooks.yaml',
    `hooks:
  - name: forms
    tenant: acme
    auth: { scheme: hmac-sha256, header: X-Form-Signature, secret: "{{secret.FORM_SECRET}}" }
    event: { type: form.submitted, id: "{{body.submission_id}}", time: "2026-11-30T10:00:00Z", subject: "{{body.email}}", payload: { topics: "{{body.topic}}" } }
`,
  );
  const body = 'submission_id=sub-9&email=ana%40example.com&topic=billing&topic=refunds';
  const form = sandbox.write('form.txt', body);
  const digest = createHmac('sha256', 'form-secret').update(body).digest('hex');
  const signed = sandbox.write(
    'form.headers.yaml',
    `Content-Type: application/x-www-form-urlencoded\nX-Form-Signature: ${digest}\n`,
  );
  const env = { FORM_SECRET: 'form-secret' };
  const ok = okJson<{ signature: string; event: Record<string, unknown> }>(
    sandbox.keel(['--hooks', hooks, 'hooks', 'test', 'forms', form, '--headers', signed, '--json'], { env }),
  );
  assert.equal(ok.signature, 'verified');
  assert.deepEqual(ok.event, {
    id: 'sub-9',
    type: 'form.submitted',
    source: 'hook:forms',
    subject: 'ana@example.com',
    payload: { topics: ['billing', 'refunds'] },
    time: '2026-11-30T10:00:00Z',
  });
  // Without the form Content-Type the same bytes are read as JSON, and are not.
  const sigOnly = sandbox.write('sig.headers.yaml', `X-Form-Signature: ${digest}\n`);
  const json = sandbox.keel(
    ['--hooks', hooks, 'hooks', 'test', 'forms', form, '--headers', sigOnly, '--json'],
    {
      env,
    },
  );
  assert.equal(json.code, 2, json.stderr);
  assert.equal(JSON.parse(json.stdout).mapping.reason, 'body_invalid');
});

test('a hooks file with a mistake is exit 2, naming file:line and field', () => {
  const bad = sandbox.write(
    'bad.hooks.yaml',
    readFileSync(join(EXAMPLE, 'keel.hooks.yaml'), 'utf8').replace(
      '    tenant: acme\n',
      '    tenant: acme\n    tennant: x\n',
    ),
  );
  const e = failJson(sandbox.keel(['--hooks', bad, 'hooks', 'ls', '--json']), 2);
  assert.equal(e.error, 'usage');
  assert.match(
    e.message,
    /bad\.hooks\.yaml:\d+:\d+: hooks\[0\]\.tennant: unknown field; did you mean "tenant"\?/,
  );
});

test('keel serve --hooks: refuses to start without the secret; with it the signed sample starts one run, a retry none', async () => {
  const missing = sandbox.keel(
    ['serve', '--create', '--port', '0', '--hooks', join(sandbox.dir, 'keel.hooks.yaml'), '--json'],
    {
      env: { HELPDESK_WEBHOOK_SECRET: undefined },
    },
  );
  assert.equal(missing.code, 2, missing.stderr);
  assert.match(missing.stderr, /hook helpdesk: its secret HELPDESK_WEBHOOK_SECRET is not set/);

  const keel = createKeel({ store: sandbox.store() });
  await deploy(
    keel,
    'acme',
    'id: refunds\nversion: 1\nstatus: LIVE\ntriggers: [{event: refund.requested, when: payload.currency == "USD"}]\nsteps:\n  - {name: noop, tool: core.noop}\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
  );
  await keel.close();
  const server = await KeelServer.start(
    sandbox,
    ['--hooks', join(sandbox.dir, 'keel.hooks.yaml')],
    sandbox.store(),
    {
      HELPDESK_WEBHOOK_SECRET: SECRET,
    },
  );
  try {
    const h = Object.fromEntries(
      readFileSync(headers, 'utf8')
        .split('\n')
        .filter((l) => /^X-/.test(l))
        .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]),
    );
    const send = () =>
      fetch(`${server.url}/hooks/helpdesk`, {
        method: 'POST',
        headers: { ...h, 'Content-Type': 'application/json' },
        body: readFileSync(sample),
      });
    const first = await send();
    const body = (await first.json()) as { runs: { runId: string; workflowId: string }[] };
    assert.equal(first.status, 201, JSON.stringify(body));
    assert.equal(body.runs[0]!.workflowId, 'refunds');
    const again = await send();
    assert.equal(again.status, 200);
    assert.equal(((await again.json()) as { runs: { runId: string }[] }).runs[0]!.runId, body.runs[0]!.runId);
    assert.doesNotMatch(server.stderr, new RegExp(SECRET), 'the secret is never logged');
  } finally {
    await server.stop();
  }
});
