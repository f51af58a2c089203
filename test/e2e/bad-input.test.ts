/**
 * Bad input through the real CLI: each refusal exits with the code from the one table, names the
 * file, line and field (or the field of an event), and changes nothing in the store or the
 * helpdesk. Tests in this file share one store and run in order.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  type CliError,
  exampleEvent,
  exampleSpec,
  failJson,
  failText,
  okJson,
  runKeel,
  Sandbox,
  show,
} from '../helpers/keel-cli.ts';
import { promoteThroughCli } from '../helpers/lifecycle.ts';
import { HelpdeskFile, withDb } from '../helpers/sqlite-files.ts';

const sandbox = new Sandbox('bad-input', { supportDesk: true });
after(() => sandbox.remove());
const keel = (...args: string[]) => sandbox.keel(args);
const desk = new HelpdeskFile(sandbox.helpdesk());

const refundYaml = readFileSync(exampleSpec('refund-under-50'), 'utf8');

/** The example spec with one line replaced; returns the file and the 1-based line that changed. */
function specWith(name: string, find: string, replace: string): { file: string; line: number } {
  const lines = refundYaml.split('\n');
  const i = lines.findIndex((l) => l.includes(find));
  assert.ok(i >= 0, `example spec has no line with ${find}`);
  lines[i] = lines[i]!.replace(find, replace);
  return { file: sandbox.write(`specs/${name}.yaml`, lines.join('\n')), line: i + 1 };
}

function storedVersions(): unknown[] {
  return withDb(sandbox.store(), (db) =>
    db.prepare('SELECT workflow_id, version, spec_hash, spec, status FROM workflow_versions').all(),
  );
}

/** Live runs: the simulated runs `keel test` makes (mode test) are not what an emit starts. */
function runCount(): number {
  return withDb(
    sandbox.store(),
    (db) => (db.prepare('SELECT count(*) AS n FROM runs WHERE mode IS NULL').get() as { n: number }).n,
  );
}

describe('keel validate refuses a bad spec, naming file:line and the field', () => {
  test('unknown tool', () => {
    const { file, line } = specWith('unknown-tool', 'tool: issue_refund', 'tool: issue_refunds');
    const err = failText(keel('validate', file), 2);
    assert.match(
      err,
      new RegExp(`${escapeRegExp(file)}:${line}:\\d+: steps\\[1\\]\\.tool: unknown tool "issue_refunds"`),
    );
  });

  test('typo in a field name', () => {
    const { file, line } = specWith('typo', '    args:', '    argz:');
    const err = failText(keel('validate', file), 2);
    assert.match(err, new RegExp(`${escapeRegExp(file)}:${line}:\\d+: steps\\[\\d\\]\\.argz: unknown field`));
    assert.match(err, /did you mean "args"/);
  });

  test('bad `when` condition', () => {
    const { file, line } = specWith('bad-when', 'payload.currency == "USD"', 'payload.currency === "USD"');
    const err = failText(keel('validate', file), 2);
    assert.match(err, new RegExp(`${escapeRegExp(file)}:${line}:\\d+: triggers\\[0\\]\\.when: `));
  });

  test('--json lists every problem with file, line, column and field', () => {
    const text = refundYaml
      .replace('tool: issue_refund', 'tool: wire_money')
      .replace('  maxSteps: 4', '  maxStep: 4')
      .replace('payload.currency == "USD"', 'payload.currency ==');
    const file = sandbox.write('specs/three-problems.yaml', text);
    const err = failJson(keel('validate', file, '--json'), 2);
    assert.equal(err.error, 'spec_invalid');
    const problems = problemsOf<{ file: string; line: number; column: number; field: string }>(err);
    const fields = problems.map((p) => p.field);
    for (const f of ['steps[1].tool', 'limits.maxStep', 'triggers[0].when'])
      assert.ok(fields.includes(f), `${f} in ${fields}`);
    for (const p of problems) {
      assert.equal(p.file, file);
      assert.ok(
        Number.isInteger(p.line) && p.line > 0 && Number.isInteger(p.column) && p.column > 0,
        JSON.stringify(p),
      );
    }
  });

  test('a missing spec file is a usage error', () => {
    assert.match(failText(keel('validate', join(sandbox.dir, 'nope.yaml')), 2), /nope\.yaml: no such file/);
  });

  test('nothing was stored by validate: it opens no store, so none was even created', () => {
    assert.equal(existsSync(sandbox.store()), false);
  });
});

describe('a published version is immutable', () => {
  let before: unknown[] = [];

  test('publish, and publish the same content again (no-op)', () => {
    const first = okJson<{ created: boolean }>(
      keel('publish', exampleSpec('refund-under-50'), '--as', 'alice', '--json'),
    );
    assert.equal(first.created, true);
    const again = okJson<{ created: boolean }>(
      keel('publish', exampleSpec('refund-under-50'), '--as', 'bob', '--json'),
    );
    assert.equal(again.created, false);
    before = storedVersions();
    assert.equal(before.length, 1);
  });

  test('same id and version with different content: exit 4, version_immutable, stored version unchanged', () => {
    const changed = sandbox.write(
      'specs/changed.yaml',
      refundYaml.replace('maxCostUsd: 50', 'maxCostUsd: 5000'),
    );
    const err = failJson(keel('publish', changed, '--as', 'mallory', '--json'), 4);
    assert.equal(err.error, 'version_immutable');
    assert.match(err.message, /refund-under-50 v1 is already published with different content/);
    assert.deepEqual(storedVersions(), before);
    assert.deepEqual(
      withDb(sandbox.store(), (db) => db.prepare('SELECT published_by FROM workflow_versions').get()),
      { published_by: 'alice' },
    );
    assert.match(failText(keel('publish', changed), 4), /publish it as a new version/);
  });
});

describe('promote refuses bad arguments', () => {
  test('a bogus status: exit 2 naming the status, nothing promoted', () => {
    const err = failText(keel('promote', 'refund-under-50', 'YOLO', '--as', 'alice'), 2);
    assert.match(err, /status: expected one of DRAFT, TESTING, SHADOW, LIVE, AUTONOMOUS, got "YOLO"/);
    assert.deepEqual(
      withDb(sandbox.store(), (db) => db.prepare('SELECT status FROM workflow_versions').all()),
      [{ status: 'DRAFT' }],
    );
  });

  test('an unknown workflow: exit 3', () => {
    assert.match(failText(keel('promote', 'no-such-workflow', 'LIVE', '--as', 'alice'), 3), /not found/);
  });

  test('a step skipped: exit 2 naming the next step, nothing promoted', () => {
    const err = failJson(keel('promote', 'refund-under-50', 'LIVE', '--as', 'alice', '--json'), 2);
    assert.equal(err.error, 'usage');
    assert.match(err.message, /one step at a time .*promote it to TESTING first/);
    assert.deepEqual(
      withDb(sandbox.store(), (db) => db.prepare('SELECT count(*) AS n FROM promotions').get()),
      { n: 0 },
    );
  });

  test('the real promotion works, one step at a time (sets up the emit tests below)', () => {
    promoteThroughCli((args) => keel(...args), 'refund-under-50', 'AUTONOMOUS', { as: 'alice' });
    assert.deepEqual(
      withDb(sandbox.store(), (db) => db.prepare('SELECT to_status FROM promotions ORDER BY id').all()),
      [{ to_status: 'TESTING' }, { to_status: 'SHADOW' }, { to_status: 'LIVE' }, { to_status: 'AUTONOMOUS' }],
    );
  });
});

describe('emit refuses a malformed event and starts nothing', () => {
  const good = JSON.parse(readFileSync(exampleEvent('refund-30'), 'utf8')) as Record<string, unknown>;

  test('missing id: exit 2 naming `id`', () => {
    const { id: _, ...noId } = good;
    const err = failText(keel('emit', sandbox.write('events/no-id.json', noId)), 2);
    assert.match(err, /event: id: is missing/);
  });

  test('not JSON: exit 2', () => {
    const file = sandbox.write('events/not-json.json', '{"id": "evt-1", "type": ');
    const err = failJson(keel('emit', file, '--json'), 2);
    assert.equal(err.error, 'event_invalid');
    assert.match(err.message, /not valid JSON/);
  });

  test('another tenant: exit 2 naming `tenant`', () => {
    const err = failJson(
      keel('emit', sandbox.write('events/other-tenant.json', { ...good, tenant: 'globex' }), '--json'),
      2,
    );
    assert.equal(err.error, 'event_invalid');
    const problems = problemsOf<{ field: string; message: string }>(err);
    assert.deepEqual(
      problems.map((p) => p.field),
      ['tenant'],
    );
    assert.match(problems[0]!.message, /globex/);
  });

  test('a bad time and a non-object payload: both fields named', () => {
    const file = sandbox.write('events/bad-fields.json', { ...good, time: 'yesterday', payload: [30] });
    const err = failJson(keel('emit', file, '--json'), 2);
    const fields = problemsOf<{ field: string }>(err)
      .map((p) => p.field)
      .sort();
    assert.deepEqual(fields, ['payload', 'time']);
  });

  test('impossible times (issue 26): exit 2 naming time, the value and why', () => {
    for (const [time, why] of [
      ['2026-02-30T00:00:00Z', /February 2026 has 28 days/],
      ['2026-13-45T00:00:00Z', /month 13/],
      ['2026-11-30T25:00:00Z', /hour 25/],
      ['2026-11-30T23:61:00Z', /minute 61/],
      ['2026-11-30T09:00:00+25:00', /offset \+25:00/],
      ['0000-00-00T00:00:00Z', /month 00/],
      ['2026-04-31T00:00:00Z', /April 2026 has 30 days/],
    ] as const) {
      const err = failJson(
        keel('emit', sandbox.write('events/impossible.json', { ...good, time }), '--json'),
        2,
      );
      assert.equal(err.error, 'event_invalid');
      const problems = problemsOf<{ field: string; message: string }>(err);
      assert.deepEqual(
        problems.map((p) => p.field),
        ['time'],
      );
      assert.ok(problems[0]!.message.includes(JSON.stringify(time)), problems[0]!.message);
      assert.match(problems[0]!.message, why);
    }
  });

  test('none of them created a run or called a tool; the good event does', () => {
    assert.equal(runCount(), 0);
    assert.equal(desk.calls(), 0);
    const ok = okJson<{ runs: { status: string }[] }>(keel('emit', exampleEvent('refund-30'), '--json'));
    assert.deepEqual(
      ok.runs.map((r) => r.status),
      ['completed'],
    );
    assert.equal(runCount(), 1);
  });
});

describe('other refusals', () => {
  test('runs show / history / verify / approve of an unknown run: exit 3', () => {
    const unknown = `sha256:${'a'.repeat(64)}`;
    assert.match(failText(keel('runs', 'show', unknown), 3), /not found/);
    assert.equal(failJson(keel('history', unknown, '--json'), 3).error, 'not_found');
    assert.equal(failJson(keel('verify', unknown, '--json'), 3).error, 'not_found');
    assert.equal(failJson(keel('approve', unknown, '--as', 'dana', '--json'), 3).error, 'not_found');
  });

  test('unknown command, bad option value, bad --limit: exit 2', () => {
    assert.equal(keel('frobnicate').code, 2);
    const r = keel('runs', 'ls', '--status', 'done');
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /--status/);
    assert.match(failText(keel('runs', 'ls', '--limit', '0'), 2), /--limit: expected a positive integer/);
  });

  test('an empty --store or --tenant is a usage error, not a throwaway store', () => {
    assert.match(failText(runKeel(['--store', '', 'runs', 'ls'], { cwd: sandbox.dir }), 2), /--store/);
    assert.match(failText(keel('--tenant', '', 'runs', 'ls'), 2), /--tenant/);
  });

  test('a store that cannot be opened: exit 6, no stack trace', () => {
    const garbage = sandbox.write('broken/keel.db', 'this is not a database');
    const err = failText(runKeel(['--store', garbage, 'runs', 'ls'], { cwd: sandbox.dir }), 6);
    assert.match(err, /cannot open store/);
    // A path whose parent is a file cannot even be created.
    const underFile = `${garbage}/nested/keel.db`;
    assert.equal(
      failJson(runKeel(['--store', underFile, 'runs', 'ls', '--json'], { cwd: sandbox.dir }), 6).error,
      'store_unavailable',
    );
  });
});

describe('publishing never skips the recorded promotion', () => {
  test('a file that says `status: AUTONOMOUS` is refused at publish, stores nothing, and runs nothing', () => {
    const store = 'gap';
    const file = sandbox.write(
      'specs/self-promoted.yaml',
      refundYaml.replace('status: DRAFT', 'status: AUTONOMOUS'),
    );
    const err = failJson(sandbox.keel(['publish', file, '--as', 'mallory', '--json'], { sub: store }), 2);
    assert.equal(err.error, 'spec_invalid');
    assert.match(err.message, /status: .*DRAFT.*keel promote/);
    // The refused first publish leaves no store behind, so nothing can run from it.
    assert.equal(existsSync(sandbox.store(store)), false, 'the store the refused publish created is gone');
    const out = failJson(sandbox.keel(['emit', exampleEvent('refund-30'), '--json'], { sub: store }), 6);
    assert.equal(out.error, 'store_not_found');
  });
});

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The `details.problems` list of a `--json` error. */
function problemsOf<T>(err: CliError): T[] {
  const problems = err.details?.problems;
  assert.ok(Array.isArray(problems), `no problems listed: ${JSON.stringify(err)}`);
  return problems as T[];
}
