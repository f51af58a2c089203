/**
 * The lifecycle commands through the CLI's `main` (in a worker thread, on a real store file): each
 * refusal has its code and exit code — a skipped step 2, an unmet gate or a failing test 10, a
 * lifecycle record edited in the file 5 — and what is shown is what the store holds: the gate's
 * conditions, the override with its reason, the test table, the diff, the rollout, the records.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { createKeel } from '../../src/app/index.ts';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { deploy, spyTool } from '../../src/testing/index.ts';
import { CliWorker, type Ran } from '../helpers/cli-in-process.ts';
import { Sandbox } from '../helpers/keel-cli.ts';

const sandbox = new Sandbox('lifecycle-cli');
after(() => sandbox.remove());
const store = sandbox.store();
const cli = new CliWorker();
after(() => cli.stop());

const SPEC = (version: number, n: number, expect: number) => `id: calc
version: ${version}
status: DRAFT
triggers: [{ event: calc }]
steps:
  - { name: add, tool: core.identity, args: { n: ${n} } }
limits: { maxSteps: 1, maxCostUsd: 0 }
tests:
  - name: adds
    event: { type: calc }
    expect: { status: completed, args: { add: { n: ${expect} } } }
`;

const keel = (...args: string[]) => cli.run(['--store', store, ...args]);
const json = <T>(r: Ran): T => {
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout) as T;
};
const refused = (r: Ran, exit: number, code: string, says?: RegExp) => {
  assert.equal(r.code, exit, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, new RegExp(`\\[${code}\\]`));
  if (says) assert.match(r.stderr, says);
};

before(async () => {
  const k = createKeel({ store, tools: [spyTool('noop')] });
  await deploy(k, 'default', SPEC(1, 1, 1).replace('status: DRAFT', 'status: LIVE'));
  await k.close();
  sandbox.write('v2.yaml', SPEC(2, 2, 2));
  sandbox.write('v3.yaml', SPEC(3, 3, 4));
  sandbox.write('calc.json', { id: 'c1', type: 'calc', time: '2026-12-01T10:00:00Z', payload: {} });
});

describe('keel promote, test, gate', () => {
  test('one step at a time; the gate names what is missing; tests run simulated and pass or fail with exit 10', async () => {
    json(await keel('publish', sandbox.write('v2.yaml', SPEC(2, 2, 2)), '--json'));
    refused(
      await keel('promote', 'calc', 'SHADOW', '--version', '2'),
      EXIT.usage,
      'usage',
      /one step at a time/,
    );
    json(await keel('promote', 'calc', 'TESTING', '--version', '2', '--json'));
    const gate = await keel('gate', 'calc', 'SHADOW', '--version', '2', '--json');
    assert.equal(gate.code, EXIT.evidenceUnmet);
    const report = JSON.parse(gate.stdout) as { met: boolean; conditions: { id: string; met: boolean }[] };
    assert.deepEqual(
      report.conditions.filter((c) => !c.met).map((c) => c.id),
      ['tests.pass'],
    );
    refused(
      await keel('promote', 'calc', 'SHADOW', '--version', '2'),
      EXIT.evidenceUnmet,
      'promotion_gate_unmet',
      /adds not run yet/,
    );
    const tested = await keel('test', 'calc', '--version', '2');
    assert.equal(tested.code, 0, tested.stderr);
    assert.match(tested.stdout, /PASS\s+adds/);
    assert.match(tested.stdout, /passed: 1 of 1/);
    const promoted = await keel('promote', 'calc', 'SHADOW', '--version', '2', '--as', 'dana');
    assert.match(promoted.stdout, /calc v2: TESTING -> SHADOW by dana/);
    assert.match(promoted.stdout, /✓ every test passes in simulated mode: 1 of 1 passed/);
    // v3 expects what it does not do: its test fails, exit 10, and the table says why.
    json(await keel('publish', sandbox.write('v3.yaml', SPEC(3, 3, 4)), '--json'));
    json(await keel('promote', 'calc', 'TESTING', '--version', '3', '--json'));
    const failing = await keel(
      'test',
      'calc',
      '--version',
      '3',
      sandbox.write('calc.json', { id: 'c1', type: 'calc', time: '2026-12-01T10:00:00Z', payload: {} }),
    );
    assert.equal(failing.code, EXIT.evidenceUnmet);
    assert.match(failing.stdout, /FAIL\s+adds/);
    assert.match(failing.stdout, /args\.add\.n: expected 4, got 3/);
    assert.match(failing.stdout, /ran\s+calc\.json/, 'an event file runs too');
    const tests = json<{ runs: { mode?: string }[] }>(await keel('runs', 'ls', '--mode', 'test', '--json'));
    assert.equal(tests.runs.length, 3, 'v2 adds, v3 adds, v3 calc.json');
    assert.ok(tests.runs.every((r) => r.mode === 'test'));
  });

  test('an override needs its reason, and the record keeps both; the diff says what changed', async () => {
    refused(
      await keel('promote', 'calc', 'SHADOW', '--version', '3', '--reason', 'x'),
      EXIT.usage,
      'usage',
      /with --override/,
    );
    refused(
      await keel('promote', 'calc', 'SHADOW', '--version', '3', '--override'),
      EXIT.usage,
      'usage',
      /needs --reason/,
    );
    const o = json<{ promotion: { override?: { reason: string }; by: string }; report: { met: boolean } }>(
      await keel(
        'promote',
        'calc',
        'SHADOW',
        '--version',
        '3',
        '--override',
        '--reason',
        'the test is wrong, not v3',
        '--as',
        'dana',
        '--json',
      ),
    );
    assert.deepEqual(
      [o.promotion.override?.reason, o.promotion.by, o.report.met],
      ['the test is wrong, not v3', 'dana', false],
    );
    const diff = json<{ changes: { area: string; text: string }[] }>(
      await keel('diff', 'calc', '1', '3', '--json'),
    );
    assert.deepEqual(
      diff.changes.map((c) => c.text),
      ['Step add: argument n is 3 (was 1).', 'Test "adds" changed.'],
    );
  });
});

describe('keel rollout', () => {
  test('needs its share; cannot advance without runs; rolls back; every step recorded', async () => {
    refused(await keel('rollout', 'calc', '--to', '2'), EXIT.usage, 'usage', /--percent/);
    refused(
      await keel('rollout', 'calc', '--to', '2', '--percent', '10', '--advance'),
      EXIT.usage,
      'usage',
      /one of --to, --advance or --rollback/,
    );
    // v2's gate to LIVE: no shadow comparisons yet.
    refused(
      await keel('rollout', 'calc', '--to', '2', '--percent', '10'),
      EXIT.evidenceUnmet,
      'promotion_gate_unmet',
    );
    const started = json<{ rollout: { percent: number; from: number; to: number } }>(
      await keel(
        'rollout',
        'calc',
        '--to',
        '2',
        '--percent',
        '10',
        '--override',
        '--reason',
        'try it',
        '--json',
      ),
    );
    assert.deepEqual([started.rollout.from, started.rollout.to, started.rollout.percent], [1, 2, 10]);
    refused(
      await keel('rollout', 'calc', '--advance'),
      EXIT.evidenceUnmet,
      'promotion_gate_unmet',
      /cannot advance yet/,
    );
    const shown = await keel('rollout', 'calc');
    assert.match(shown.stdout, /v2 gets 10% of events, v1 the rest/);
    const back = json<{ rollout: { status: string } }>(
      await keel('rollout', 'calc', '--rollback', '--reason', 'not now', '--json'),
    );
    assert.equal(back.rollout.status, 'rolled_back');
    const records = await keel('promotions', 'calc');
    assert.equal(records.code, 0, records.stderr);
    assert.match(
      records.stdout,
      /v2 SHADOW -> LIVE, rolling out to 10% of events by .* \[rollout\] \(override: try it\)/,
    );
    assert.match(records.stdout, /v2 LIVE -> SHADOW by .* \[rollback\]/);
    assert.match(records.stdout, /ok: calc: \d+ lifecycle records, chain intact/);
  });
});

describe('keel verify --workflow', () => {
  test('a lifecycle record edited in the file fails verification, exit 5, naming the record', async () => {
    json(await keel('verify', '--workflow', 'calc', '--json'));
    const db = new Database(store);
    db.prepare(
      "UPDATE promotions SET by = 'mallory' WHERE workflow_id = 'calc' AND to_status = 'TESTING' AND version = 2",
    ).run();
    db.close();
    const v = await keel('verify', '--workflow', 'calc');
    assert.equal(v.code, EXIT.verificationFailed);
    assert.match(
      v.stdout,
      /FAILED: calc: record \d+ \(calc v2 DRAFT -> TESTING by mallory\) does not hash to its stored hash: it was edited/,
    );
    assert.equal((await keel('promotions', 'calc')).code, EXIT.verificationFailed);
    refused(await keel('verify', 'sha256:x', '--workflow', 'calc'), EXIT.usage, 'usage', /not both/);
  });
});
