/**
 * Which store (and tenant) a command uses: --store, then KEEL_STORE, then ./.keel/keel.db;
 * --tenant, then KEEL_TENANT, then `default`. Every child runs inside the sandbox directory, with
 * the support desk's tools from KEEL_TOOLS (its helpdesk in a directory of its own).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  exampleEvent,
  exampleSpec,
  okJson,
  runKeel,
  Sandbox,
  SUPPORT_DESK_PACK,
} from '../helpers/keel-cli.ts';
import { putAtStatus } from '../helpers/lifecycle.ts';
import { withDb } from '../helpers/sqlite-files.ts';

const sandbox = new Sandbox('store-env');
after(() => sandbox.remove());
const cwd = sandbox.dir;
const envStore = join(cwd, 'from-env', 'keel.db');
const flagStore = join(cwd, 'from-flag', 'keel.db');
const tools = { KEEL_TOOLS: SUPPORT_DESK_PACK, HELPDESK_DB: join(cwd, 'desk', 'helpdesk.db') };

function tenantsIn(store: string): string[] {
  return withDb(store, (db) =>
    (
      db.prepare('SELECT DISTINCT tenant FROM workflow_versions ORDER BY tenant').all() as {
        tenant: string;
      }[]
    ).map((r) => r.tenant),
  );
}

describe('store and tenant selection', () => {
  test('KEEL_STORE (and KEEL_TENANT) are honoured when --store is absent', async () => {
    const env = { ...tools, KEEL_STORE: envStore, KEEL_TENANT: 'acme' };
    okJson(runKeel(['publish', exampleSpec('refund-under-50'), '--as', 'alice', '--json'], { cwd, env }));
    // Not a test of promotion: put at AUTONOMOUS directly where the publish put it (store and tenant).
    await putAtStatus(envStore, 'acme', 'refund-under-50', 'AUTONOMOUS');
    const emitted = okJson<{ runs: { runId: string; status: string }[] }>(
      runKeel(['emit', exampleEvent('refund-30'), '--json'], { cwd, env }),
    );
    assert.equal(emitted.runs[0]?.status, 'completed');
    assert.ok(existsSync(envStore), 'the store is where KEEL_STORE says');
    assert.equal(existsSync(join(cwd, '.keel')), false, 'the default store was not touched');
    assert.deepEqual(tenantsIn(envStore), ['acme']);
    // The same store read through --store and --tenant shows the run.
    const listed = okJson<{ runs: { runId: string }[] }>(
      runKeel(['--store', envStore, '--tenant', 'acme', 'runs', 'ls', '--json'], { cwd }),
    );
    assert.deepEqual(
      listed.runs.map((r) => r.runId),
      [emitted.runs[0]!.runId],
    );
  });

  test('--store and --tenant win over KEEL_STORE and KEEL_TENANT', () => {
    const env = { ...tools, KEEL_STORE: envStore, KEEL_TENANT: 'acme' };
    okJson(
      runKeel(
        [
          '--store',
          flagStore,
          '--tenant',
          'globex',
          'publish',
          exampleSpec('close-resolved-ticket'),
          '--json',
        ],
        {
          cwd,
          env,
        },
      ),
    );
    assert.deepEqual(tenantsIn(flagStore), ['globex']);
    assert.deepEqual(tenantsIn(envStore), ['acme'], 'the KEEL_STORE store is unchanged');
  });

  test('an empty KEEL_STORE counts as unset: the default ./.keel/keel.db is used', () => {
    okJson(
      runKeel(['publish', exampleSpec('refund-under-50'), '--json'], {
        cwd,
        env: { ...tools, KEEL_STORE: '' },
      }),
    );
    const defaultStore = join(cwd, '.keel', 'keel.db');
    assert.ok(existsSync(defaultStore));
    assert.deepEqual(tenantsIn(defaultStore), ['default']);
  });
});
