/**
 * The real `keel` command on plan modules: `check` exit codes and output, and `validate` /
 * `publish` of a `*.plan.ts` file against a real SQLite store.
 */
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DIGEST, failJson, okJson, runKeel, Sandbox, show } from '../../test/helpers/keel-cli.ts';
import type { PlanFinding } from './plan-finding.ts';

const CORPUS = join(dirname(fileURLToPath(import.meta.url)), 'corpus');
const REFUND_PLAN = join(CORPUS, 'allowed', 'refund-under-50.plan.ts');
const ALIAS_PLAN = join(CORPUS, 'forbidden', 'alias-destructure-date-now.plan.ts');

describe('keel check', () => {
  test('clean plan modules exit 0 and say so', () => {
    const r = runKeel(['check', join(CORPUS, 'allowed')]);
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /^ok: \d+ plan modules, no findings\n$/);
  });

  test('findings print file:line:col lines (or a JSON array) and exit 7', () => {
    const human = runKeel(['check', ALIAS_PLAN, REFUND_PLAN]);
    assert.equal(human.code, 7, show(human));
    const lines = human.stdout.trim().split('\n');
    assert.deepEqual(lines.slice(0, 2), [
      `${ALIAS_PLAN}:2:9: Date.now is not allowed in a plan module (destructured): it reads the host clock, so each load would yield another spec; use \`{{clock.now}}\` in step args, which Keel records in the ledger`,
      `${ALIAS_PLAN}:3:19: Date.now is not allowed in a plan module (called as now()): it reads the host clock, so each load would yield another spec; use \`{{clock.now}}\` in step args, which Keel records in the ledger`,
    ]);
    assert.equal(lines[2], '2 findings in 1 of 2 plan modules');

    const json = runKeel(['--json', 'check', ALIAS_PLAN]);
    assert.equal(json.code, 7, show(json));
    const findings = JSON.parse(json.stdout) as PlanFinding[];
    assert.deepEqual(
      findings.map((f) => [f.file, f.line, f.column, f.what]),
      [
        [ALIAS_PLAN, 2, 9, 'Date.now'],
        [ALIAS_PLAN, 3, 19, 'Date.now'],
      ],
    );
  });

  test('a missing path is bad input (exit 2)', () => {
    const err = failJson(runKeel(['--json', 'check', join(CORPUS, 'missing.plan.ts')]), 2);
    assert.equal(err.error, 'usage');
  });
});

describe('keel validate / publish of a plan module', () => {
  const box = new Sandbox('plan', { supportDesk: true });
  after(() => box.remove());

  test('validate and publish a clean plan module; publish refuses one that fails the check', () => {
    const valid = okJson<{ id: string; specHash: string }>(box.keel(['--json', 'validate', REFUND_PLAN]));
    assert.equal(valid.id, 'refund-under-50');
    assert.match(valid.specHash, DIGEST);
    const published = okJson<{ created: boolean; specHash: string; status: string }>(
      box.keel(['--json', 'publish', REFUND_PLAN, '--as', 'alice']),
    );
    assert.deepEqual(
      [published.created, published.status, published.specHash],
      [true, 'DRAFT', valid.specHash],
    );

    const refused = failJson(box.keel(['--json', 'publish', ALIAS_PLAN, '--as', 'alice']), 7);
    assert.equal(refused.error, 'determinism_violation');
    assert.equal((refused.details?.findings as unknown[] | undefined)?.length, 2);
    assert.match(refused.message, /alias-destructure-date-now\.plan\.ts:2:9: Date\.now .* \(\+1 more\)$/);
  });
});
