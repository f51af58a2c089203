/**
 * Signed checkpoints through the real CLI and over HTTP: `keel checkpoint --key` signs the
 * tenant's run heads, `keel audit verify --key` passes on an honest store and fails (exit 5) when
 * the checkpoints were signed by another key than the pinned one; without a key, checkpoint is a
 * usage error naming --key and KEEL_CHECKPOINT_KEY. `GET /v1/audit/verify` (served with the
 * server's checkpoint key) answers in OpenWOP's audit-integrity shape for the key's tenant only.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { exampleEvent, exampleSpec, failJson, okJson, Sandbox } from '../helpers/keel-cli.ts';
import { createKey, KeelServer } from '../helpers/keel-server.ts';
import { putAtStatus } from '../helpers/lifecycle.ts';

const sandbox = new Sandbox('checkpoint', { supportDesk: true });
const pair = () => {
  const k = generateKeyPairSync('ed25519');
  return {
    priv: k.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    pub: k.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
};
const mine = pair();
const theirs = pair();
let keyFile: string;
let pubFile: string;
let otherPub: string;

before(async () => {
  okJson(sandbox.keel(['--tenant', 'acme', 'publish', exampleSpec('refund-under-50'), '--json']));
  await putAtStatus(sandbox.store(), 'acme', 'refund-under-50', 'AUTONOMOUS');
  for (const e of ['refund-30', 'refund-500'] as const)
    okJson(sandbox.keel(['--tenant', 'acme', '--json', 'emit', exampleEvent(e)]));
  keyFile = sandbox.write('checkpoint.key.pem', mine.priv);
  pubFile = sandbox.write('checkpoint.pub.pem', mine.pub);
  otherPub = sandbox.write('other.pub.pem', theirs.pub);
});
after(() => sandbox.remove());

describe('keel checkpoint and keel audit verify', () => {
  test('without a key, checkpoint says how to give one', () => {
    const e = failJson(
      sandbox.keel(['--tenant', 'acme', '--json', 'checkpoint'], { env: { KEEL_CHECKPOINT_KEY: undefined } }),
      2,
    );
    assert.match(e.message, /--key: give the checkpoint private key \(or set KEEL_CHECKPOINT_KEY\)/);
  });

  test('a checkpoint signs both runs; audit verify passes with the pinned key and fails with another', () => {
    const c = okJson<{ seq: number; runs: number; changed: number; keyId: string }>(
      sandbox.keel(['--tenant', 'acme', '--json', 'checkpoint', '--key', keyFile]),
    );
    assert.deepEqual([c.seq, c.runs, c.changed], [1, 2, 2]);
    const again = okJson<{ seq: number; changed: number }>(
      sandbox.keel(['--tenant', 'acme', '--json', 'checkpoint'], { env: { KEEL_CHECKPOINT_KEY: keyFile } }),
    );
    assert.deepEqual([again.seq, again.changed], [2, 0]);
    const ok = okJson<{ ok: boolean; runsChecked: number; checkpoints: unknown[] }>(
      sandbox.keel(['--tenant', 'acme', '--json', 'audit', 'verify', '--key', pubFile]),
    );
    assert.deepEqual([ok.ok, ok.runsChecked, ok.checkpoints.length], [true, 2, 2]);
    const text = sandbox.keel(['--tenant', 'acme', 'audit', 'verify', '--key', pubFile]);
    assert.match(text.stdout, /2 checkpoint\(s\) verified; 2 run\(s\) match their checkpointed heads/);
    const wrong = sandbox.keel(['--tenant', 'acme', 'audit', 'verify', '--key', otherPub]);
    assert.equal(wrong.code, 5, wrong.stdout + wrong.stderr);
    assert.match(
      wrong.stdout,
      /signature-invalid: checkpoint 1 is signed by key sha256:[0-9a-f]+, not the trusted key/,
    );
  });

  test('GET /v1/audit/verify answers in OpenWOP’s shape, for the key’s tenant only', async () => {
    const acme = createKey(sandbox, 'acme');
    const globex = createKey(sandbox, 'globex');
    // The surface is served (and advertised) only with the server's checkpoint key.
    const server = await KeelServer.start(sandbox, [
      '--checkpoint-key',
      keyFile,
      '--checkpoint-every',
      '3600',
    ]);
    try {
      const r = await server.api<{
        fromSeq: number;
        toSeq: number;
        chainValid: boolean;
        checkpointsValid: boolean;
        checkpoints: { checkpoint: string; atSequence: number; merkleRoot: string }[];
        anomalies: unknown[];
      }>('GET', '/v1/audit/verify', { key: acme });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(
        [r.body.fromSeq, r.body.toSeq, r.body.chainValid, r.body.checkpointsValid],
        [0, 2, true, true],
      );
      assert.deepEqual(
        r.body.checkpoints.map((c) => [c.checkpoint, c.atSequence]),
        [
          ['1', 1],
          ['2', 2],
        ],
      );
      assert.deepEqual(r.body.anomalies, []);
      assert.match(r.body.checkpoints[0]!.merkleRoot, /^[0-9a-f]{64}$/);
      const other = await server.api<{ checkpoints: unknown[] }>('GET', '/audit/verify', { key: globex });
      assert.deepEqual(other.body.checkpoints, []);
      assert.equal((await server.api('GET', '/api/audit/verify')).status, 401);
    } finally {
      await server.stop();
    }
  });
});

describe('keel verify --dir --key', () => {
  test('an export carries the last checkpoint: every run is proven covered under the key, not under another', () => {
    const out = `${sandbox.dir}/carried`;
    okJson(sandbox.keel(['--tenant', 'acme', '--json', 'checkpoint', '--key', keyFile]));
    okJson(
      sandbox.keel(['--tenant', 'acme', '--json', 'export', '--workflow', 'refund-under-50', '--out', out]),
    );
    const r = okJson<{
      ok: boolean;
      runs: { checkpoint?: { verified: boolean } }[];
      checkpoint: { under: string };
    }>(sandbox.keel(['--json', 'verify', '--dir', out, '--key', pubFile]));
    assert.equal(r.checkpoint.under, 'key');
    assert.ok(r.runs.length === 2 && r.runs.every((x) => x.checkpoint?.verified === true));
    const text = sandbox.keel(['verify', '--dir', out, '--key', pubFile]);
    assert.match(text.stdout, /is in checkpoint \d+/);
    const other = sandbox.keel(['verify', '--dir', out, '--key', otherPub]);
    assert.equal(other.code, 5, other.stdout + other.stderr);
    assert.match(other.stdout, /not the checkpoint key given/);
    const misuse = failJson(
      sandbox.keel(['--tenant', 'acme', '--json', 'verify', 'sha256:00', '--key', pubFile]),
      2,
    );
    assert.match(misuse.message, /--key: checks the checkpoint a run directory carries; give it with --dir/);
  });
});

describe('keel retention', () => {
  test('removes the finished runs a verified export holds and a checkpoint covers; audit verify counts them', () => {
    const out = `${sandbox.dir}/evidence`;
    okJson(
      sandbox.keel(['--tenant', 'acme', '--json', 'export', '--workflow', 'refund-under-50', '--out', out]),
    );
    okJson(sandbox.keel(['--tenant', 'acme', '--json', 'checkpoint', '--key', keyFile]));
    const args = [
      '--tenant',
      'acme',
      '--json',
      'retention',
      '--before',
      '2100-01-01T00:00:00Z',
      '--dir',
      out,
    ];
    const dry = okJson<{ removed: string[]; kept: { reason: string }[]; dryRun: boolean }>(
      sandbox.keel([...args, '--dry-run']),
    );
    assert.equal(dry.dryRun, true);
    const runs = okJson<{ runs: { runId: string; status: string }[] }>(
      sandbox.keel(['--tenant', 'acme', '--json', 'runs', 'ls']),
    ).runs;
    const finished = runs.filter((r) => r.status !== 'waiting_approval').map((r) => r.runId);
    assert.ok(finished.length >= 1, 'the 30 USD refund completed');
    assert.deepEqual([...dry.removed].sort(), [...finished].sort());
    const done = okJson<{ removed: string[]; manifestDigest: string }>(sandbox.keel(args));
    assert.deepEqual([...done.removed].sort(), [...finished].sort());
    const left = okJson<{ runs: unknown[] }>(sandbox.keel(['--tenant', 'acme', '--json', 'runs', 'ls'])).runs;
    assert.equal(left.length, runs.length - finished.length);
    const audit = okJson<{ ok: boolean; retained: number }>(
      sandbox.keel(['--tenant', 'acme', '--json', 'audit', 'verify']),
    );
    assert.equal(audit.ok, true);
    assert.equal(audit.retained, finished.length);
    const bad = failJson(
      sandbox.keel(['--tenant', 'acme', '--json', 'retention', '--before', 'soon', '--dir', out]),
      2,
    );
    assert.match(bad.message, /--before: expected an RFC 3339 instant like 2026-01-31T12:00:00Z, got "soon"/);
  });
});
