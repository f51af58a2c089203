/**
 * Periodic checkpoints under `keel serve` (startServer with `checkpoints`): a real server on a
 * loopback port signs a checkpoint of every tenant whose runs moved, on its timer, and only then;
 * discovery publishes the key as OpenWOP's audit-log-integrity facets describe, and every
 * checkpoint `/audit/verify` shows verifies under that key over the 32 bytes of its root. A
 * checkpoint signed with another key is refused by the pinned surface, and a rewritten run stops
 * the checkpointer from signing that tenant (reported, never signed over). With a witness, each
 * checkpoint is kept there too, and a deleted chain is reported by the checkpointer and the audit
 * surface alike.
 */
import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { DirectoryWitness } from '../adapters/witness/index.ts';
import type { CheckpointerEvent } from '../app/checkpointer.ts';
import { startCheckpointer } from '../app/checkpointer.ts';
import { makeCheckpoint } from '../app/checkpoints/index.ts';
import { createKeel, type Keel } from '../app/index.ts';
import { deploy, withStoreFile } from '../testing/index.ts';
import { type RunningServer, startServer } from './serve.ts';

const SPEC = `id: audited
version: 1
status: LIVE
triggers: [{event: go}]
steps:
  - {name: a, tool: core.noop}
limits: {maxSteps: 2, maxCostUsd: 0}
`;

const keyPair = () => generateKeyPairSync('ed25519');
let n = 0;
const emit = (keel: Keel, tenant: string) =>
  keel.events.emit(tenant, { id: `e-${++n}`, type: 'go', time: '2026-12-01T10:00:00Z', payload: {} });

describe('periodic checkpoints under keel serve', () => {
  const key = keyPair();
  const events: CheckpointerEvent[] = [];
  let keel: Keel;
  let server: RunningServer;
  let apiKey: string;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'keel-periodic-checkpoints-'));
    keel = createKeel({ store: join(dir, 'k.db') });
    await deploy(keel, 'acme', SPEC);
    await deploy(keel, 'globex', SPEC);
    apiKey = (await keel.keys.create('acme', 'dana')).key;
    server = await startServer(keel, {
      port: 0,
      log: () => {},
      recovery: { log: () => {} },
      checkpoints: { key, everySeconds: 1, log: (e) => events.push(e) },
    });
  });
  after(async () => {
    await server.close();
    await keel.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}${path}`, {
      headers: { Authorization: `Bearer ${apiKey}`, ...headers },
    });
    return (await res.json()) as Record<string, unknown>;
  };
  const waitFor = async (what: () => boolean, ms = 5000) => {
    const until = Date.now() + ms;
    while (!what()) {
      if (Date.now() > until) throw new Error(`timed out: ${JSON.stringify(events)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  test('discovery publishes the checkpoint key and cadence', async () => {
    const doc = await get('/.well-known/openwop', { 'OpenWOP-Version': '2' });
    const facet = doc.auditLogIntegrity as Record<string, unknown>;
    assert.equal(facet.checkpointSignatureAlgorithm, 'ed25519');
    assert.match(facet.checkpointPublicKey as string, /^MCowBQYDK2VwAyEA[A-Za-z0-9+/]{43}=$/);
    assert.equal(
      facet.checkpointPublicKey,
      key.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    );
    assert.equal(facet.checkpointIntervalSeconds, 1);
    assert.equal(facet.checkpointIntervalEntries, 1);
  });

  test('runs that moved are checkpointed on the timer, each tenant, once per move', async () => {
    await emit(keel, 'acme');
    await emit(keel, 'globex');
    await waitFor(() => new Set(events.map((e) => e.tenant)).size === 2);
    assert.ok(events.every((e) => e.made && !e.error));
    const seen = events.length;
    // Nothing moved: a second or two of rounds sign nothing more.
    await new Promise((r) => setTimeout(r, 2200));
    assert.equal(events.length, seen, 'no checkpoint without a moved head');
    assert.equal((await keel.store.checkpoints.listCheckpoints('acme')).length, 1);
    await emit(keel, 'acme');
    await waitFor(() => events.length > seen);
    assert.deepEqual(
      (await keel.store.checkpoints.listCheckpoints('acme')).map((c) => c.runs),
      [1, 2],
    );
  });

  test('every checkpoint /audit/verify shows verifies under the published key over its root bytes', async () => {
    const doc = await get('/.well-known/openwop', { 'OpenWOP-Version': '2' });
    const pub = createPublicKey({
      key: Buffer.from(
        (doc.auditLogIntegrity as { checkpointPublicKey: string }).checkpointPublicKey,
        'base64',
      ),
      format: 'der',
      type: 'spki',
    });
    const r = await get('/audit/verify', { 'OpenWOP-Version': '2' });
    const cps = r.checkpoints as { merkleRoot: string; signature: string }[];
    assert.ok(cps.length >= 2);
    for (const c of cps) {
      assert.match(c.merkleRoot, /^[0-9a-f]{64}$/);
      assert.equal(
        verify(null, Buffer.from(c.merkleRoot, 'hex'), pub, Buffer.from(c.signature, 'base64')),
        true,
      );
    }
    assert.equal(r.checkpointsValid, true);
    assert.equal(r.chainValid, true);
  });

  test('a checkpoint signed with another key is refused by the pinned audit surface', async () => {
    const other = keyPair();
    await emit(keel, 'acme');
    await makeCheckpoint(keel.store, 'acme', other);
    const r = await get('/audit/verify', { 'OpenWOP-Version': '2' });
    const last = (r.checkpoints as { checkpoint: string; atSequence: number }[]).at(-1)!;
    assert.equal(r.checkpointsValid, false);
    assert.equal(r.chainValid, false, 'an anomaly is listed, so the chain is not valid');
    // RFC 0218 §C: keyed atSeq, the checkpoint named by its id, no chain hashes.
    assert.deepEqual(
      (r.anomalies as Record<string, unknown>[]).find((a) => a.kind === 'signature-invalid'),
      {
        atSeq: last.atSequence,
        kind: 'signature-invalid',
        checkpoint: last.checkpoint,
        detail: (r.anomalies as { kind: string; detail: string }[]).find(
          (a) => a.kind === 'signature-invalid',
        )!.detail,
      },
    );
  });
});

test('the checkpointer reports a rewritten run and signs nothing over it', () =>
  withStoreFile('keel-checkpointer-rewritten', async (path) => {
    const keel = createKeel({ store: path });
    await deploy(keel, 'acme', SPEC);
    const { runs } = await emit(keel, 'acme');
    const key = keyPair();
    const c = startCheckpointer(keel.store, { key, everyMs: 3_600_000 });
    try {
      const first = await c.round();
      assert.equal(first[0]?.made?.checkpoint.seq, 1);
      assert.equal((await c.round())[0]?.made?.skipped, true, 'nothing moved: nothing signed');
      await keel.close();
      // Cut the run's last entry and move its head back: the checkpointed head is gone.
      const raw = new Database(path);
      raw.prepare('DELETE FROM entries WHERE seq = (SELECT max(seq) FROM entries)').run();
      raw.prepare('UPDATE runs SET head_seq = head_seq - 1').run();
      raw.close();
    } finally {
      await c.stop();
    }
    const again = createKeel({ store: path });
    const c2 = startCheckpointer(again.store, { key, everyMs: 3_600_000 });
    try {
      const [e] = await c2.round();
      assert.equal(e?.made, undefined);
      assert.match(e!.error!, new RegExp(`run ${runs[0]!.runId}`));
      assert.equal((await again.store.checkpoints.listCheckpoints('acme')).length, 1);
    } finally {
      await c2.stop();
      await again.close();
    }
  }));

test('under keel serve with a witness, each checkpoint is kept there; a deleted chain is reported and not signed over', () =>
  withStoreFile('keel-checkpointer-witness', async (path) => {
    const witness = join(dirname(path), 'witness');
    const keel = createKeel({ store: path, checkpointWitness: witness });
    const key = keyPair();
    const events: CheckpointerEvent[] = [];
    await deploy(keel, 'acme', SPEC);
    await emit(keel, 'acme');
    const apiKey = (await keel.keys.create('acme', 'dana')).key;
    const server = await startServer(keel, {
      port: 0,
      log: () => {},
      recovery: { log: () => {} },
      checkpoints: { key, everySeconds: 3600, log: (e) => events.push(e) },
    });
    try {
      // One round by hand (the timer is an hour): the checkpoint is in the store and the witness.
      const c = startCheckpointer(keel.store, {
        key,
        everyMs: 3_600_000,
        witness: new DirectoryWitness(witness),
      });
      try {
        const [made] = await c.round();
        assert.equal(made?.made?.checkpoint.seq, 1);
        assert.deepEqual(readdirSync(join(witness, 'acme')), ['000000000001.json']);
        const raw = new Database(path);
        for (const t of ['checkpoints', 'checkpoint_heads', 'checkpoint_latest'])
          raw.prepare(`DELETE FROM ${t}`).run();
        raw.close();
        await emit(keel, 'acme');
        const [refused] = await c.round();
        assert.equal(refused?.made, undefined);
        assert.match(refused!.error!, /the witness holds checkpoint 1 .* holds no checkpoint/);
      } finally {
        await c.stop();
      }
      const res = await fetch(`${server.url}/api/audit/verify`, {
        headers: { Authorization: `Bearer ${apiKey}` },
      });
      const r = (await res.json()) as { ok: boolean; anomalies: { kind: string; checkpoint?: number }[] };
      assert.equal(r.ok, false);
      assert.deepEqual(
        r.anomalies.map((a) => [a.kind, a.checkpoint]),
        [['checkpoint-missing', 1]],
      );
    } finally {
      await server.close();
      await keel.close();
    }
  }));
