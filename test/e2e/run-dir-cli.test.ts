/**
 * Run directories through the real CLI: `keel export` of the support desk's runs, `keel verify
 * --dir` in a process that has no store (and could not write one), a tampered copy failing with
 * exit 5 and the file and line named, `keel import` into PostgreSQL where the runs verify, and
 * the refusals (an existing --out, a directory that does not verify). The golden directory in
 * test/fixtures/run-dir verifies as it is kept.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { dropSchema, scratchSchemaName, testDatabaseUrl } from '../../src/adapters/postgres/index.ts';
import { exampleEvent, exampleSpec, failJson, okJson, REPO, runKeel, Sandbox } from '../helpers/keel-cli.ts';
import { putAtStatus } from '../helpers/lifecycle.ts';

const sandbox = new Sandbox('run-dir', { supportDesk: true });
const url = testDatabaseUrl();
const schema = scratchSchemaName('keel_test_run_dir_cli');
const pg = `${url}${url.includes('?') ? '&' : '?'}schema=${schema}`;
const GOLDEN = join(REPO, 'test', 'fixtures', 'run-dir');
const runIds: string[] = [];

interface VerifyJson {
  ok: boolean;
  runs: {
    runId: string;
    ok: boolean;
    status: string;
    problems: { file: string; line?: number; code: string }[];
  }[];
  problems: { file: string; code: string }[];
}

before(async () => {
  okJson(sandbox.keel(['--tenant', 'acme', 'publish', exampleSpec('refund-under-50'), '--json']));
  await putAtStatus(sandbox.store(), 'acme', 'refund-under-50', 'AUTONOMOUS');
  for (const e of ['refund-30', 'refund-500'] as const) {
    const r = okJson<{ runs: { runId: string }[] }>(
      sandbox.keel(['--tenant', 'acme', '--json', 'emit', exampleEvent(e)]),
    );
    runIds.push(r.runs[0]!.runId);
  }
});
after(async () => {
  sandbox.remove();
  await dropSchema(url, schema);
});

describe('keel export, verify --dir, import', () => {
  const out = join(sandbox.dir, 'evidence');

  test('export writes the runs and says how to check them', () => {
    const r = okJson<{ runs: string[]; entries: number; manifestDigest: string }>(
      sandbox.keel(['--tenant', 'acme', '--json', 'export', '--workflow', 'refund-under-50', '--out', out]),
    );
    assert.deepEqual(r.runs, runIds);
    assert.match(r.manifestDigest, /^sha256:[0-9a-f]{64}$/);
    for (const id of runIds) assert.ok(existsSync(join(out, 'runs', id.replace(':', '-'), 'ledger.jsonl')));
    const again = failJson(
      sandbox.keel(['--tenant', 'acme', '--json', 'export', runIds[0]!, '--out', out]),
      2,
    );
    assert.match(again.message, /exists and is not an empty directory; it is never overwritten/);
  });

  test('verify --dir needs no store: run from elsewhere, without privileges, it verifies and opens nothing', () => {
    const missing = join(sandbox.dir, 'no-such', 'keel.db');
    const r = runKeel(['--store', missing, '--json', 'verify', '--dir', out], { unprivileged: true });
    const v = okJson<VerifyJson>(r);
    assert.equal(v.ok, true);
    assert.deepEqual(
      v.runs.map((x) => [x.runId, x.status]),
      [
        [runIds[0], 'completed'],
        [runIds[1], 'refused'],
      ],
    );
    assert.equal(existsSync(missing), false, 'verify --dir created a store');
    const text = runKeel(['verify', '--dir', out]);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /2 run\(s\) verified, every file as the manifest records it/);
  });

  test('a tampered copy fails with exit 5, naming the file and the line', () => {
    const copy = join(sandbox.dir, 'tampered');
    cpSync(out, copy, { recursive: true });
    const ledger = join(copy, 'runs', runIds[0]!.replace(':', '-'), 'ledger.jsonl');
    const lines = readFileSync(ledger, 'utf8').split('\n');
    const before = lines[2]!;
    lines[2] = before.replace('T-1001', 'T-1002');
    assert.notEqual(lines[2], before, 'line 3 names the ticket');
    writeFileSync(ledger, lines.join('\n'));
    const json = runKeel(['--json', 'verify', '--dir', copy]);
    assert.equal(json.code, 5);
    const v = JSON.parse(json.stdout) as VerifyJson;
    assert.equal(v.runs[0]!.problems[0]!.line, 3);
    const r = runKeel(['verify', '--dir', copy]);
    assert.equal(r.code, 5);
    assert.match(
      r.stdout,
      new RegExp(`FAILED ${runIds[0]}: runs/[^ ]+/ledger\\.jsonl line 3: .*\\[hash_mismatch\\]`),
    );
    assert.match(r.stdout, /ledger\.jsonl: hashes to sha256:[0-9a-f]+, but the manifest records/);
  });

  test('import into PostgreSQL: the runs verify there; a second import finds them; a tampered directory imports nothing', () => {
    const r = okJson<{ imported: string[]; tenant: string }>(
      runKeel(['--store', pg, '--json', 'import', out]),
    );
    assert.deepEqual(r.imported, runIds);
    assert.equal(r.tenant, 'acme');
    for (const id of runIds) {
      const v = okJson<{ ok: boolean }>(runKeel(['--store', pg, '--tenant', 'acme', '--json', 'verify', id]));
      assert.equal(v.ok, true);
    }
    const again = okJson<{ imported: string[]; present: string[] }>(
      runKeel(['--store', pg, '--json', 'import', out]),
    );
    assert.deepEqual(again.present, runIds);
    const bad = failJson(runKeel(['--store', pg, '--json', 'import', join(sandbox.dir, 'tampered')]), 5);
    assert.match(bad.message, /does not verify.*nothing was imported/);
  });

  test('the golden run directory verifies as kept', () => {
    const v = okJson<VerifyJson>(runKeel(['--json', 'verify', '--dir', GOLDEN]));
    assert.equal(v.ok, true, JSON.stringify(v));
    assert.ok(v.runs.length >= 2);
  });
});
