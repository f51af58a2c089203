/**
 * The server's environment over HTTP: a real `keel serve` whose process holds a database URL with
 * its password, a payment key and a region, started with `--expose-env acme=REGION,API_TOKEN`.
 * Tenant globex can publish nothing that reads them (refused at publish, naming the variable and
 * the flag that would expose it), and Keel's own nondeterminism fixture reads them as unset for it;
 * tenant acme reads what was exposed to it, its secret only as a keyed hash. No answer to either
 * tenant ever holds a value that was not exposed to it. Then the same rule in the CLI, whose
 * default is the server's: nothing exposed until --expose-env or KEEL_EXPOSE_ENV says so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { failText, okJson, Sandbox } from '../helpers/keel-cli.ts';
import { createKey, KeelServer } from '../helpers/keel-server.ts';

const SERVER_ENV = {
  KEEL_DATABASE_URL: 'postgres://keel:db-pass-7Yq2@127.0.0.1:1/prod',
  STRIPE_KEY: 'sk_live_9f8e7d6c5b4a',
  KEEL_REGION: 'eu-private-3',
  REGION: 'eu-west',
  API_TOKEN: 'tok-acme-3Kd9',
};
/** Values a tenant must never see over HTTP (what acme may see is checked separately). */
const NEVER = [SERVER_ENV.KEEL_DATABASE_URL, 'db-pass-7Yq2', SERVER_ENV.STRIPE_KEY, SERVER_ENV.KEEL_REGION];

const sandbox = new Sandbox('env-exposure');
let server: KeelServer;
let acme: string;
let globex: string;
const seen: string[] = [];

/** Every answer body is kept, so the last test can check none of them held an unexposed value. */
async function api<T = Record<string, unknown>>(method: string, path: string, key: string, body?: unknown) {
  const r = await server.api<T>(method, path, { key, ...(body !== undefined ? { body } : {}) });
  seen.push(JSON.stringify(r.body));
  return r;
}

const spec = (id: string, env: string[], args: Record<string, string>) => ({
  id,
  version: 1,
  status: 'DRAFT',
  env,
  triggers: [{ event: 'go' }],
  steps: [{ name: 'read', tool: 'core.identity', args }],
  limits: { maxSteps: 1, maxCostUsd: 0 },
});

before(async () => {
  acme = createKey(sandbox, 'acme');
  globex = createKey(sandbox, 'globex');
  // The spawned server inherits this process's environment (the helper copies it at start).
  Object.assign(process.env, SERVER_ENV);
  server = await KeelServer.start(sandbox, ['--expose-env', 'acme=REGION,API_TOKEN']);
});
after(async () => {
  await server?.stop();
  for (const k of Object.keys(SERVER_ENV)) delete process.env[k];
  sandbox.remove();
});

describe('a tenant reads only the variables the operator exposed to it', () => {
  test('globex cannot publish a spec reading the database URL, the payment key, or a name exposed to acme only', async () => {
    for (const name of ['KEEL_DATABASE_URL', 'STRIPE_KEY', 'REGION']) {
      const r = await api<{
        error: string;
        message: string;
        details: { problems: { field: string; message: string }[] };
      }>(
        'POST',
        '/api/workflows',
        globex,
        spec(`leak-${name.toLowerCase().replaceAll('_', '-')}`, [name], { v: `{{env.${name}}}` }),
      );
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.error, 'spec_invalid');
      assert.equal(r.body.details.problems[0]!.field, 'env[0]');
      assert.match(r.body.message, new RegExp(`env\\.${name} is not exposed to tenant globex`));
      assert.match(r.body.message, new RegExp(`--expose-env globex=${name}`));
    }
    const listed = await api<{ versions: unknown[] }>('GET', '/api/workflows', globex);
    assert.equal(
      listed.body.versions.filter((v) => String((v as { workflowId: string }).workflowId).startsWith('leak-'))
        .length,
      0,
      'nothing was published',
    );
  });

  test("Keel's nondeterminism fixture runs for globex with KEEL_REGION unset, never its value", async () => {
    const c = await api<{ runId: string }>('POST', '/runs', globex, {
      workflowId: 'conformance-nondeterminism',
    });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    const path = `/runs/${c.body.runId.replace('/', '~2F')}`;
    assert.equal(
      (await server.waitFor(path, globex, (s) => s === 'completed' || s === 'failed')).status,
      'completed',
    );
    const poll = await api<{ events: { type: string; payload: { outputs?: Record<string, string> } }[] }>(
      'GET',
      `${path}/events/poll?timeout=1`,
      globex,
    );
    const outputs = poll.body.events.find((e) => e.type === 'run.completed')!.payload.outputs!;
    assert.equal(outputs.env, 'null');
  });

  test('acme reads REGION in clear and API_TOKEN only as a keyed hash; the tool got the token and its echo is masked', async () => {
    const published = await api(
      'POST',
      '/api/workflows',
      acme,
      spec('reads', ['API_TOKEN', 'REGION'], {
        region: '{{env.REGION}}',
        token: '{{env.API_TOKEN}}',
      }),
    );
    assert.equal(published.status, 201, JSON.stringify(published.body));
    const started = await api<{ runId: string }>('POST', '/api/workflows/reads/runs', acme, {
      event: { id: 'e1', type: 'go', time: '2026-01-01T00:00:00Z', payload: {} },
    });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    const runPath = `/api/runs/${encodeURIComponent(started.body.runId)}`;
    assert.equal((await server.waitFor(runPath, acme, (s) => s !== 'running')).status, 'completed');
    const entries = await api<{ entries: { kind: string; payload: Record<string, unknown> }[] }>(
      'GET',
      `${runPath}/entries`,
      acme,
    );
    const drawn = entries.body.entries.filter((e) => e.kind === 'source.drawn').map((e) => e.payload);
    assert.equal(drawn.find((d) => d.name === 'REGION')?.value, 'eu-west');
    const token = drawn.find((d) => d.name === 'API_TOKEN')?.value as { $secret: string; env: string };
    assert.match(token.$secret, /^hmac-sha256:[0-9a-f]{64}$/);
    const completed = entries.body.entries.find((e) => e.kind === 'step.completed')!.payload;
    assert.deepEqual(completed.output, { region: 'eu-west', token: '[secret API_TOKEN]' });
    await api('GET', `${runPath}/history`, acme);
    const events = await api(
      'GET',
      `/v1/runs/${encodeURIComponent(started.body.runId)}/events/poll?timeout=1`,
      acme,
    );
    assert.equal(events.status, 200, JSON.stringify(events.body));
  });

  test('no answer to either tenant held the token, the database URL or its password, the payment key or KEEL_REGION', () => {
    const all = seen.join('\n');
    for (const value of [...NEVER, SERVER_ENV.API_TOKEN])
      assert.ok(!all.includes(value), `an answer held ${value}`);
    assert.ok(all.includes('eu-west'), 'the exposed region did reach acme (the check above is not vacuous)');
  });
});

describe('the CLI exposes nothing by default either', () => {
  const yaml = [
    'id: local',
    'version: 1',
    'status: DRAFT',
    'env: [REGION, API_TOKEN]',
    'steps:',
    '  - {name: read, tool: core.identity, args: {region: "{{env.REGION}}", token: "{{env.API_TOKEN}}"}}',
    'limits: {maxSteps: 1, maxCostUsd: 0}',
    '',
  ].join('\n');
  const cli = (args: string[], env: Record<string, string> = {}) =>
    sandbox.keel(args, { sub: 'cli', env: { ...SERVER_ENV, ...env } });

  test('publish is refused naming each variable and the flag; --expose-env and KEEL_EXPOSE_ENV expose them', () => {
    const file = sandbox.write('local.yaml', yaml);
    const refused = failText(cli(['publish', file]), 2);
    assert.match(refused, /env\[0\]: env\.REGION is not exposed to tenant default/);
    assert.match(refused, /--expose-env default=API_TOKEN/);
    const published = okJson<{ workflowId: string }>(
      cli(['--expose-env', 'default=REGION,API_TOKEN', 'publish', file, '--json']),
    );
    assert.equal(published.workflowId, 'local');
    const event = sandbox.write('event.json', { id: 'local-1', type: 'go', time: '2026-01-01T00:00:00Z' });
    const run = okJson<{ runId: string; status: string }>(
      cli(['run', 'local', event, '--json', '--live', '--yes'], {
        KEEL_EXPOSE_ENV: 'default=REGION,API_TOKEN',
      }),
    );
    assert.equal(run.status, 'completed');
    const read = (runId: string) =>
      okJson<{ kind: string; text: string }[]>(cli(['history', runId, '--json']))
        .filter((l) => l.kind === 'source.drawn')
        .map((l) => l.text);
    const [region, token] = read(run.runId);
    assert.equal(region, 'Read env REGION: "eu-west".');
    assert.match(
      token!,
      /^Read env API_TOKEN: \{"\$secret":"hmac-sha256:[0-9a-f]{64}","env":"API_TOKEN"\}\.$/,
    );
    // The same stored version run without the exposure reads both as unset.
    const other = sandbox.write('event-2.json', { id: 'local-2', type: 'go', time: '2026-01-01T00:00:00Z' });
    const unset = okJson<{ runId: string; status: string }>(
      cli(['run', 'local', other, '--json', '--live', '--yes']),
    );
    const [region2, token2] = read(unset.runId);
    assert.equal(region2, 'Read env REGION: null.');
    assert.match(token2!, /^Read env API_TOKEN: \{"\$secret":"hmac-sha256:/);
    assert.notEqual(token2, token, 'an unset secret hashes to something else');
  });

  test('a malformed --expose-env is a one-line usage error naming the option', () => {
    const r = failText(cli(['--expose-env', 'REGION', 'runs', 'ls']), 2);
    assert.match(r, /^error: --expose-env: expected TENANT=NAME\[,NAME\.\.\.\] entries/);
    assert.equal(r.trim().split('\n').length, 1);
  });
});
