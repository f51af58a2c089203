/**
 * The issue's repro through the real CLI (docs/audit.md, "Witness"): a ticket's close is approved
 * (the helpdesk closes it once), `keel checkpoint --witness` signs and keeps the checkpoint
 * outside the store, then the store's owner cuts the run back to its approval request (run and
 * approvals rows consistent) and deletes every checkpoint row. `keel verify` passes; `keel audit
 * verify` fails (exit 5), with or without the witness, never "no checkpoints yet"; the next
 * `keel checkpoint` refuses to sign; `keel approve` with the witness refuses before the helpdesk
 * is called again. `verify --dir --key` tells a run directory's true head from a forged one.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { exampleEvent, exampleSpec, failJson, okJson, Sandbox } from '../helpers/keel-cli.ts';
import { putAtStatus } from '../helpers/lifecycle.ts';
import { entryRows, HelpdeskFile, runRow, setRunHead, withDb } from '../helpers/sqlite-files.ts';

const sandbox = new Sandbox('witness', { supportDesk: true });
after(() => sandbox.remove());
const desk = new HelpdeskFile(sandbox.helpdesk());
const k = generateKeyPairSync('ed25519');
let keyFile = '';
let pubFile = '';
let witness = '';
let runId = '';
const keel = (args: readonly string[], env: Record<string, string | undefined> = {}) =>
  sandbox.keel(['--tenant', 'acme', '--json', ...args], { env });

before(async () => {
  keyFile = sandbox.write('checkpoint.key.pem', k.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  pubFile = sandbox.write('checkpoint.pub.pem', k.publicKey.export({ type: 'spki', format: 'pem' }));
  witness = join(sandbox.dir, 'witness');
  okJson(keel(['publish', exampleSpec('close-resolved-ticket')]));
  await putAtStatus(sandbox.store(), 'acme', 'close-resolved-ticket', 'LIVE');
  const r = okJson<{ runs: { runId: string; status: string }[] }>(
    keel(['emit', exampleEvent('ticket-resolved')]),
  );
  assert.equal(r.runs[0]?.status, 'waiting_approval');
  runId = r.runs[0]!.runId;
});

describe('a checkpoint witness outside the store', () => {
  test('approve, checkpoint, cut back, erase the checkpoints: audit verify and checkpoint fail, approve refuses', () => {
    const waitingHead = runRow(sandbox.store(), runId)!;
    const approvalRow = withDb(
      sandbox.store(),
      (db) => db.prepare('SELECT * FROM approvals WHERE run_id = ?').get(runId) as Record<string, unknown>,
    );
    okJson(keel(['approve', runId, '--as', 'dana']));
    assert.equal(desk.calls('close_ticket'), 1);
    const made = okJson<{ seq: number; treeSize: number; witness: string }>(
      keel(['--witness', witness, 'checkpoint', '--key', keyFile]),
    );
    assert.deepEqual([made.seq, made.treeSize, made.witness], [1, 1, witness]);
    assert.deepEqual(readdirSync(join(witness, 'acme')), ['000000000001.json']);
    okJson(keel(['audit', 'verify', '--key', pubFile], { KEEL_CHECKPOINT_WITNESS: witness }));

    // The owner's erasure, consistent: verify sees nothing wrong.
    const seq = Number(waitingHead.head_seq);
    withDb(sandbox.store(), (db) => {
      const key = db.prepare('SELECT run_key FROM runs WHERE run_id = ?').pluck().get(runId);
      db.prepare('DELETE FROM entries WHERE run_key = ? AND seq > ?').run(key, seq);
      db.prepare("UPDATE runs SET status = 'waiting_approval' WHERE run_id = ?").run(runId);
      const cols = Object.keys(approvalRow);
      db.prepare(
        `INSERT INTO approvals (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`,
      ).run(approvalRow);
      for (const t of ['checkpoints', 'checkpoint_heads', 'checkpoint_latest'])
        db.prepare(`DELETE FROM ${t}`).run();
    });
    setRunHead(sandbox.store(), runId, { seq, hash: entryRows(sandbox.store(), runId).at(-1)!.hash });
    assert.equal(okJson<{ ok: boolean }>(keel(['verify', runId])).ok, true);

    // Without the witness: no checkpoint for a tenant with runs fails, never "no checkpoints yet".
    const bare = sandbox.keel(['--tenant', 'acme', 'audit', 'verify', '--key', pubFile]);
    assert.equal(bare.code, 5, bare.stdout + bare.stderr);
    assert.match(
      bare.stdout,
      /checkpoint-missing: tenant acme has 1 run\(s\) and the store holds no checkpoint/,
    );
    assert.doesNotMatch(bare.stdout, /no checkpoints yet/);
    // With it: the checkpoint it keeps is named.
    const w = sandbox.keel(['--tenant', 'acme', '--witness', witness, 'audit', 'verify', '--key', pubFile]);
    assert.equal(w.code, 5, w.stdout + w.stderr);
    assert.match(
      w.stdout,
      /checkpoint-missing: the witness holds checkpoint 1 \(sha256:[0-9a-f]{64}\) but the store's chain holds no checkpoint/,
    );
    // The next checkpoint does not sign the forgery.
    const refused = failJson(keel(['--witness', witness, 'checkpoint', '--key', keyFile]), 5);
    assert.equal(refused.error, 'ledger_invalid');
    assert.equal(refused.details?.code, 'checkpoint_missing');
    assert.deepEqual(readdirSync(join(witness, 'acme')), ['000000000001.json']);
    // Approving again is refused before the helpdesk is called.
    const again = failJson(keel(['approve', runId, '--as', 'dana'], { KEEL_CHECKPOINT_WITNESS: witness }), 5);
    assert.equal(again.details?.code, 'checkpoint_missing');
    assert.equal(desk.calls('close_ticket'), 1, 'the ticket was closed once, never again');
  });

  test('a file of the witness is a root an auditor holds; it is never written to', () => {
    const held = join(witness, 'acme', '000000000001.json');
    const before = readFileSync(held, 'utf8');
    const r = sandbox.keel(['--tenant', 'acme', '--witness', held, 'audit', 'verify', '--key', pubFile]);
    assert.equal(r.code, 5);
    assert.match(r.stdout, /checkpoint-missing: the witness holds checkpoint 1/);
    const e = failJson(keel(['--witness', held, 'checkpoint', '--key', keyFile]), 5);
    assert.equal(e.details?.code, 'checkpoint_missing');
    const edited = join(sandbox.dir, 'edited.json');
    writeFileSync(edited, before.replace('"runs": 1', '"runs": 2, "extra": 1'));
    const bad = failJson(keel(['--witness', edited, 'audit', 'verify']), 5);
    assert.match(bad.message, /is not a signed checkpoint: it has an unknown field "extra"/);
    assert.equal(readFileSync(held, 'utf8'), before);
  });
});
