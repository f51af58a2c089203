/**
 * A writ's budget under real concurrency, with real processes: several `keel emit --writ`
 * processes on one SQLite file, and several `keel worker` processes draining runs enqueued on
 * PostgreSQL, all under one writ allowing a single call. Exactly one tool call is made, counted on
 * the tool's side (crash-tools' effects table), never from the ledger; every other run is refused
 * writ_budget_exhausted, and every ledger verifies. PostgreSQL: KEEL_TEST_DATABASE_URL (default the
 * local server) in a fresh schema; never skips.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import pg from 'pg';
import {
  dropSchema,
  openScratchStore,
  scratchSchemaName,
  testDatabaseUrl,
} from '../../src/adapters/postgres/index.ts';
import { createKeel, type Keel } from '../../src/app/index.ts';
import type { PayloadOf } from '../../src/core/ledger/index.ts';
import { keyIdOf, signWrit, type WritBody } from '../../src/core/writs/index.ts';
import { deploy } from '../../src/testing/index.ts';
import { KEEL_COMMAND } from '../../src/testing/keel-command.ts';
import { WorkerProcess } from '../../src/testing/worker-process.ts';
import { Sandbox } from '../helpers/keel-cli.ts';
import { crashTools, EFFECTS_TABLE, effectLog } from '../recovery/crash-tools.ts';

const TOOLS = join(import.meta.dirname, '..', 'recovery', 'crash-tools.ts');
const url = testDatabaseUrl();
const sandbox = new Sandbox('writ-budget');
const schemas: string[] = [];
const workers: WorkerProcess[] = [];
after(async () => {
  for (const w of workers) if (w.alive) await w.kill9();
  for (const s of schemas) await dropSchema(url, s);
  sandbox.remove();
});

// The command's tenant is `default`: workers serve it (they take no --tenant).
const TENANT = 'default';
const SPEC = `id: pay
version: 1
status: AUTONOMOUS
triggers: [{ event: go }]
steps:
  - { name: pay, tool: charge }
limits: { maxSteps: 3, maxCostUsd: 0 }
`;
const go = (id: string) => ({ id, type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });

/** A writ allowing one tool call, its file and the public key file to trust. */
function oneCallWrit(): { chain: unknown[]; writFile: string; pubFile: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const body: WritBody = {
    v: 1,
    id: 'one-call',
    tenant: TENANT,
    subject: 'payments',
    issuer: keyIdOf(publicKey),
    parent: null,
    scopes: ['charge'],
    budget: { cents: 0, steps: 10, calls: 1 },
    window: { notBefore: '2020-01-01T00:00:00Z', notAfter: '2100-01-01T00:00:00Z' },
    effectCeiling: { max: 'external', destructive: false },
    delegation: { maxDepth: 0, maySubdivide: false },
    depth: 0,
  };
  const chain = [signWrit(body, privateKey)];
  const name = `w${schemas.length}-${Date.now()}`;
  return {
    chain,
    writFile: sandbox.write(`${name}.writ.json`, { chain }),
    pubFile: sandbox.write(`${name}.pub.pem`, publicKey.export({ type: 'spki', format: 'pem' }).toString()),
  };
}

/** Runs `keel ...args` as a child process without waiting for it (several run at once). */
function keelAsync(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...KEEL_COMMAND, ...args], {
      cwd: sandbox.dir,
      env: { ...process.env, NO_COLOR: '1', KEEL_STORE: '', KEEL_TENANT: '', NODE_TEST_CONTEXT: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

/** Every run of the tenant has finished: its statuses, and each refusal's code. */
async function outcomes(keel: Keel): Promise<{ statuses: string[]; refusals: string[] }> {
  const runs = (await keel.runs.list(TENANT, { limit: 100 })).runs;
  const refusals: string[] = [];
  for (const r of runs) {
    const refused = (await keel.runs.entries(TENANT, r.runId)).find((e) => e.kind === 'step.refused');
    if (refused) refusals.push((refused.payload as PayloadOf<'step.refused'>).code);
    assert.equal((await keel.runs.verify(TENANT, r.runId)).ok, true);
  }
  return { statuses: runs.map((r) => r.status).sort(), refusals };
}

test('emit processes racing on one SQLite file under a one-call writ make exactly one call', async () => {
  const N = 3;
  const store = sandbox.store('sqlite');
  const effects = join(sandbox.dir, 'effects.db');
  const w = oneCallWrit();
  const setupLog = effectLog(effects);
  const setupKeel = createKeel({ store, tools: crashTools(setupLog) });
  await deploy(setupKeel, TENANT, SPEC);
  await setupKeel.close();
  await setupLog.close();
  const results = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      keelAsync(
        [
          '--store',
          store,
          '--tools',
          TOOLS,
          '--trust-keys',
          w.pubFile,
          '--json',
          'emit',
          sandbox.write(`sqlite-go-${i}.json`, go(`s${i}`)),
          '--writ',
          w.writFile,
        ],
        { CRASH_EFFECTS: effects },
      ),
    ),
  );
  for (const r of results) assert.equal(r.code, 0, r.err);
  const log = effectLog(effects);
  const rows = await log.rows();
  await log.close();
  assert.deepEqual(
    rows.map((r) => [r.tool, r.calls]),
    [['charge', 1]],
    'exactly one tool call, counted on the tool side',
  );
  const keel = createKeel({ store });
  const { statuses, refusals } = await outcomes(keel);
  assert.deepEqual(statuses, ['completed', ...Array(N - 1).fill('refused')]);
  assert.deepEqual(refusals, Array(N - 1).fill('writ_budget_exhausted'));
  assert.deepEqual(
    (await keel.store.budgets.readWritBudgets(TENANT, (await keel.writs.inspect(TENANT, w.chain)).hash))!.map(
      (u) => u.used,
    ),
    [{ steps: 1, calls: 1, cents: 0 }],
  );
  await keel.close();
});

test('workers racing on PostgreSQL under a one-call writ make exactly one call', async () => {
  const N = 8;
  const schema = scratchSchemaName('keel_test_budget');
  schemas.push(schema);
  const u = new URL(url);
  u.searchParams.set('schema', schema);
  const storeUrl = u.toString();
  const c = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  const store = await openScratchStore(url, schema);
  await c.connect();
  await c.query(EFFECTS_TABLE);
  await c.end();
  const w = oneCallWrit();
  const pub = w.pubFile;
  const setupLog = effectLog(storeUrl);
  const keel = createKeel({
    store,
    walk: 'enqueue',
    trustedKeys: { [TENANT]: [readFileSync(pub, 'utf8')] },
    tools: crashTools(setupLog),
  });
  await deploy(keel, TENANT, SPEC);
  // Enqueued by this process, which walks nothing: the workers walk every run.
  for (let i = 0; i < N; i++) {
    const r = await keel.events.emit(TENANT, go(`p${i}`), { writ: w.chain });
    assert.equal(r.runs[0]!.status, 'running');
  }
  const env = { CRASH_EFFECTS: storeUrl, KEEL_TRUST: pub };
  for (let i = 0; i < 2; i++)
    workers.push(
      new WorkerProcess({
        store: storeUrl,
        tools: TOOLS,
        id: `budget-${i}`,
        pollMs: 20,
        concurrency: 4,
        env,
      }),
    );
  await Promise.all(workers.map((x) => x.ready));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const running = (await keel.runs.list(TENANT, { status: 'running', limit: 100 })).runs.length;
    if (running === 0) break;
    if (Date.now() > deadline)
      assert.fail(`runs still running after 60 s:\n${workers.map((x) => x.stderr).join('\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const x of workers) await x.terminate();
  const log = effectLog(storeUrl);
  const rows = await log.rows();
  await log.close();
  assert.deepEqual(
    rows.map((r) => [r.tool, r.calls]),
    [['charge', 1]],
    'exactly one tool call, counted on the tool side',
  );
  const { statuses, refusals } = await outcomes(keel);
  assert.deepEqual(statuses, ['completed', ...Array(N - 1).fill('refused')]);
  assert.deepEqual(refusals, Array(N - 1).fill('writ_budget_exhausted'));
  await keel.close();
  await setupLog.close();
});
