/**
 * Portable run directories, end to end on real stores: runs exported from SQLite verify from their
 * files alone; every single-byte change of any file, a dropped or reordered line, and a renamed or
 * added file are caught, naming the file (and, in a ledger, the line); the directory imports into
 * PostgreSQL and from there, exported again byte for byte, into another SQLite file, where every
 * run verifies and replays identical; an import never writes a run that fails, is unfinished, or
 * collides with another run of the same id.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import {
  dropSchema,
  openScratchStore,
  scratchSchemaName,
  testDatabaseUrl,
} from '../adapters/postgres/index.ts';
import type { Digest } from '../core/canonical/index.ts';
import { chainEntry, type StoredEntry } from '../core/ledger/index.ts';
import {
  CHECKPOINT_FILE,
  type CheckpointFile,
  fileDigest,
  jsonFile,
  ledgerFile,
  type Manifest,
  parseLedgerFile,
  runDirName,
  sealManifest,
  verifyRunDir,
} from '../core/run-dir/index.ts';
import { deploy, fakeSources, withStoreFile } from '../testing/index.ts';
import { makeCheckpoint } from './checkpoints/index.ts';
import { createKeel, type Keel } from './index.ts';
import { exportRunDir, importRunDir } from './run-dirs.ts';

const SPEC = `id: audit-me
version: 1
status: LIVE
triggers: [{event: go}]
steps:
  - {name: a, tool: core.identity, args: {n: "{{event.payload.n}}", doc: "{{event.payload.doc}}", at: "{{clock.now}}", r: "{{random.hex}}"}}
  - {name: gate, tool: core.approvalGate, args: {title: "Ship it?"}}
  - {name: b, tool: core.noop}
limits: {maxSteps: 3, maxCostUsd: 0}
`;

const url = testDatabaseUrl();
const schema = scratchSchemaName('keel_test_run_dirs');
const NOW = () => '2026-12-01T00:00:00.000Z';
/** A document every run carries (event, arguments, output): above the blob threshold, one blob. */
const DOC = `Terms of the refund, as the customer accepted them: ${'every item may be returned within 30 days. '.repeat(120)}`;

async function seed(keel: Keel): Promise<string[]> {
  await deploy(keel, 'acme', SPEC);
  const ids: string[] = [];
  for (let n = 0; n < 3; n++) {
    const { runs } = await keel.events.emit('acme', {
      id: `e-${n}`,
      type: 'go',
      time: '2026-11-30T10:00:00Z',
      payload: { n, doc: DOC },
    });
    ids.push(runs[0]!.runId);
  }
  await keel.approvals.approve('acme', ids[0]!, 'dana', 'fine');
  await keel.approvals.deny('acme', ids[1]!, 'dana', 'not now');
  return ids; // ids[2] still waits for a person
}

const linesBefore = (bytes: Uint8Array, at: number) => {
  let n = 1;
  for (let i = 0; i < at; i++) if (bytes[i] === 0x0a) n++;
  return n;
};

describe('portable run directories', () => {
  let source: { keel: Keel; dispose: () => Promise<void> };
  let ids: string[];
  let files: Map<string, Uint8Array>;

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keel-run-dirs-'));
    const keel = createKeel({
      store: join(dir, 'k.db'),
      sources: fakeSources({ start: Date.UTC(2026, 10, 30, 10) }),
    });
    source = {
      keel,
      dispose: async () => {
        await keel.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
    ids = await seed(keel);
    files = (await exportRunDir(keel, 'acme', { workflowId: 'audit-me' }, { now: NOW })).files;
  });
  after(async () => {
    await source.dispose();
    await dropSchema(url, schema);
  });

  test('an export verifies from its files alone and says what each run is', () => {
    const r = verifyRunDir(files);
    assert.equal(r.ok, true, JSON.stringify(r.problems.concat(r.runs.flatMap((x) => x.problems))));
    assert.deepEqual(
      r.runs.map((x) => [x.runId, x.status]),
      [
        [ids[0], 'completed'],
        [ids[1], 'refused'],
        [ids[2], 'waiting_approval'],
      ],
    );
    assert.equal(r.tenant, 'acme');
    assert.ok(files.has('manifest.json'));
    // The document is one blob file for all three runs, named by its hash; the ledgers reference it.
    const blobs = [...files.keys()].filter((f) => f.startsWith('blobs/'));
    assert.equal(blobs.length, 1);
    assert.ok(blobs[0]!.endsWith(fileDigest(files.get(blobs[0]!)!).slice(7)));
    const ledger = new TextDecoder().decode(files.get(`runs/${ids[0]!.replace(':', '-')}/ledger.jsonl`));
    assert.ok(
      !ledger.includes('every item may be returned within 30 days. every item'),
      'the ledger holds references',
    );
    assert.ok(ledger.includes(blobs[0]!.slice(6)));
  });

  test('a missing blob is named as the blob file, with the ledger line that references it', () => {
    const blob = [...files.keys()].find((f) => f.startsWith('blobs/'))!;
    const r = verifyRunDir(new Map([...files].filter(([k]) => k !== blob)));
    assert.equal(r.ok, false);
    const p = r.runs.flatMap((x) => x.problems).find((x) => x.code === 'blob_missing');
    assert.equal(p?.file, blob);
    assert.match(p!.message, /ledger\.jsonl line 1\b/);
    assert.ok(r.problems.some((x) => x.file === blob && x.code === 'file_missing'));
  });

  test('a run that fails verification in the store is not exported', () =>
    withStoreFile('keel-run-dirs-edited', async (path) => {
      const keel = createKeel({ store: path });
      const [id] = await seed(keel);
      await keel.close();
      const db = new Database(path);
      const edited = db
        .prepare(
          "UPDATE entries SET payload = CAST(replace(CAST(payload AS TEXT), 'Ship it?', 'Ship it!') AS BLOB) WHERE kind = 'approval.requested'",
        )
        .run();
      db.close();
      assert.ok(edited.changes > 0);
      const again = createKeel({ store: path });
      await assert.rejects(exportRunDir(again, 'acme', { runIds: [id!] }), (e: Error & { code?: string }) => {
        assert.equal(e.code, 'ledger_invalid');
        assert.match(e.message, /fails verification at seq \d+.*not exported/);
        return true;
      });
      await again.close();
    }));

  test('any one byte changed in any file is caught, naming the file (and a ledger line)', () => {
    const names = [...files.keys()];
    fc.assert(
      fc.property(
        fc.nat({ max: names.length - 1 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (fi, pos, xor) => {
          const name = names[fi]!;
          const bytes = files.get(name)!;
          const at = pos % bytes.length;
          const changed = new Uint8Array(bytes);
          changed[at] = changed[at]! ^ xor;
          const r = verifyRunDir(new Map([...files, [name, changed]]));
          assert.equal(r.ok, false);
          const problems = r.problems.concat(r.runs.flatMap((x) => x.problems));
          assert.ok(
            problems.some((p) => p.file === name),
            `${name}@${at}: ${JSON.stringify(problems)}`,
          );
          if (name.endsWith('ledger.jsonl'))
            assert.ok(
              problems.some((p) => p.file === name && p.line === linesBefore(bytes, at)),
              `${name}@${at} (line ${linesBefore(bytes, at)}): ${JSON.stringify(problems)}`,
            );
        },
      ),
      { numRuns: 400 },
    );
  });

  test('a dropped, reordered or added line, a renamed run and an added file are caught', () => {
    const ledger = `runs/${ids[0]!.replace(':', '-')}/ledger.jsonl`;
    const lines = new TextDecoder().decode(files.get(ledger)).split('\n').slice(0, -1);
    const withLines = (ls: string[]) =>
      new Map([...files, [ledger, new TextEncoder().encode(`${ls.join('\n')}\n`)]]);
    const cases: [string, Map<string, Uint8Array>, RegExp, number | undefined][] = [
      ['dropped line 3', withLines(lines.filter((_, i) => i !== 2)), /seq|parent/i, 3],
      ['last line dropped', withLines(lines.slice(0, -1)), /hashes to|entries/i, undefined],
      [
        'lines 2 and 3 swapped',
        withLines([lines[0]!, lines[2]!, lines[1]!, ...lines.slice(3)]),
        /seq|parent/i,
        2,
      ],
      ['a line added', withLines([...lines, lines[lines.length - 1]!]), /seq/i, lines.length + 1],
    ];
    for (const [what, dir, message, line] of cases) {
      const r = verifyRunDir(dir);
      assert.equal(r.ok, false, what);
      const p =
        r.runs.flatMap((x) => x.problems).find((x) => x.file === ledger) ??
        r.problems.find((x) => x.file === ledger);
      assert.ok(p, `${what}: ${JSON.stringify(r)}`);
      assert.match(p.message, message, what);
      if (line !== undefined) assert.equal(p.line, line, what);
    }
    const renamed = new Map(
      [...files].map(([k, v]) => [
        k.replace(ids[0]!.replace(':', '-'), ids[0]!.replace(':', '-').replace(/.$/, '0')),
        v,
      ]),
    );
    const r1 = verifyRunDir(renamed);
    assert.equal(r1.ok, false);
    assert.ok(r1.runs[0]!.problems.some((p) => p.code === 'file_missing'));
    const added = verifyRunDir(new Map([...files, ['runs/notes.txt', new Uint8Array([1])]]));
    assert.deepEqual(
      added.problems.map((p) => [p.file, p.code]),
      [['runs/notes.txt', 'file_unlisted']],
    );
  });

  test('import into PostgreSQL, export from there byte for byte, import into SQLite: every run verifies and replays identical', async () => {
    const pgStore = await openScratchStore(url, schema);
    const pgKeel = createKeel({ store: pgStore });
    const first = await importRunDir(pgKeel.store, files);
    // The unfinished run is refused; nothing else.
    assert.deepEqual(first.imported, [ids[0], ids[1]]);
    assert.deepEqual(
      first.refused.map((x) => [x.runId, x.code]),
      [[ids[2], 'run_not_finished']],
    );
    for (const id of first.imported) {
      assert.equal((await pgKeel.runs.verify('acme', id)).ok, true);
      assert.equal((await pgKeel.runs.replay('acme', id)).identical, true);
    }
    // Importing again finds them there; nothing is written twice.
    const again = await importRunDir(pgKeel.store, files);
    assert.deepEqual(again.present, [ids[0], ids[1]]);
    assert.deepEqual(again.imported, []);
    // The imported version never routes: it is DRAFT in the new store.
    assert.equal((await pgKeel.workflows.get('acme', 'audit-me', 1))?.status, 'DRAFT');

    const back = (await exportRunDir(pgKeel, 'acme', { runIds: first.imported }, { now: NOW })).files;
    for (const id of first.imported) {
      const ledger = `runs/${id.replace(':', '-')}/ledger.jsonl`;
      assert.deepEqual(
        back.get(ledger),
        files.get(ledger),
        `${ledger} changed on the way through PostgreSQL`,
      );
    }
    await pgKeel.close();

    await withStoreFile('keel-run-dirs-back', async (path) => {
      const sqlite = createKeel({ store: path });
      const r = await importRunDir(sqlite.store, back);
      assert.deepEqual(r.imported, first.imported);
      for (const id of r.imported) {
        assert.equal((await sqlite.runs.verify('acme', id)).ok, true);
        assert.equal((await sqlite.runs.replay('acme', id)).identical, true);
        assert.deepEqual(
          (await sqlite.runs.history('acme', id)).map((l) => l.text),
          (await source.keel.runs.history('acme', id)).map((l) => l.text),
        );
      }
      await sqlite.close();
    });
  });

  test('an import writes nothing from a directory that does not verify, and never overwrites another run', () =>
    withStoreFile('keel-run-dirs-refuse', async (path) => {
      const keel = createKeel({ store: path });
      const ledger = `runs/${ids[0]!.replace(':', '-')}/ledger.jsonl`;
      const bad = new Map(files);
      const b = new Uint8Array(files.get(ledger)!);
      b[40] = b[40]! ^ 1;
      bad.set(ledger, b);
      await assert.rejects(
        importRunDir(keel.store, bad),
        /does not verify: .*ledger\.jsonl.*nothing was imported/,
      );
      assert.equal((await keel.store.runs.listRuns('acme')).runs.length, 0);
      await assert.rejects(importRunDir(keel.store, files, { tenant: 'globex' }), /tenant acme's/);
      // The same run id with another ledger in the store is refused, not overwritten.
      await deploy(keel, 'acme', SPEC);
      const theirs = await keel.events.emit('acme', {
        id: 'e-0',
        type: 'go',
        time: '2026-11-30T10:00:00Z',
        payload: { n: 0, doc: DOC },
      });
      assert.equal(theirs.runs[0]!.runId, ids[0], 'the same event names the same run');
      const r = await importRunDir(keel.store, files);
      assert.ok(
        r.refused.some((x) => x.runId === ids[0] && x.code === 'run_exists'),
        JSON.stringify(r),
      );
      assert.equal((await keel.runs.get('acme', ids[0]!)).status, 'waiting_approval');
      await keel.close();
    }));
});

/**
 * A run directory carries the checkpoint that covers it: `verify --dir` with the checkpoint key
 * tells a directory rewritten whole (every hash and the manifest recomputed) from the true one.
 */
describe('the checkpoint a run directory carries', () => {
  const SIMPLE = `id: carry
version: 1
status: LIVE
triggers: [{event: go}]
steps:
  - {name: a, tool: core.identity, args: {n: "{{event.payload.n}}"}}
limits: {maxSteps: 2, maxCostUsd: 0}
`;
  const key = generateKeyPairSync('ed25519');
  const other = generateKeyPairSync('ed25519');

  /** The directory with run `runId`'s entry at `seq` edited, every hash after it and the manifest recomputed. */
  function reforge(files: ReadonlyMap<string, Uint8Array>, runId: string, seq: number, drop?: string) {
    const out = new Map(files);
    const name = `${runDirName(runId)}/ledger.jsonl`;
    const parsed = parseLedgerFile(name, files.get(name)!);
    assert.ok(parsed.ok);
    const entries: StoredEntry[] = parsed.entries.slice(0, seq);
    for (const e of parsed.entries.slice(seq)) {
      const payload = JSON.parse(new TextDecoder().decode(e.payload)) as Record<string, unknown>;
      const edited = e.seq === seq ? { ...payload, output: { n: 'forged' } } : payload;
      const prev = entries.at(-1);
      entries.push(
        chainEntry(runId, prev ? { seq: prev.seq, hash: prev.hash } : null, e.kind, edited as never, e.at)
          .stored,
      );
    }
    out.set(name, ledgerFile(entries));
    if (drop) out.delete(drop);
    const m = JSON.parse(new TextDecoder().decode(files.get('manifest.json'))) as Manifest;
    const digests: Record<string, Digest> = {};
    for (const [f, b] of [...out].sort(([a], [b]) => (a < b ? -1 : 1)))
      if (f !== 'manifest.json') digests[f] = fileDigest(b);
    const { contentHash: _, ...rest } = m;
    const manifest = sealManifest({
      ...rest,
      runs: m.runs.map((r) => (r.runId === runId ? { ...r, head: entries.at(-1)!.hash } : r)),
      files: digests,
    });
    out.set('manifest.json', jsonFile(manifest));
    return out;
  }

  test('checkpoint, export: every run is proven covered; a directory rewritten whole is told from the true one', async () => {
    await withStoreFile('keel-carry', async (path) => {
      const keel = createKeel({ store: path, sources: fakeSources({ start: Date.UTC(2026, 10, 30, 10) }) });
      try {
        await deploy(keel, 'acme', SIMPLE);
        const ids: string[] = [];
        for (let n = 0; n < 3; n++)
          ids.push(
            (
              await keel.events.emit('acme', {
                id: `e-${n}`,
                type: 'go',
                time: '2026-11-30T10:00:00Z',
                payload: { n },
              })
            ).runs[0]!.runId,
          );
        const uncovered = (await exportRunDir(keel, 'acme', { workflowId: 'carry' }, { now: NOW })).files;
        assert.equal(uncovered.has(CHECKPOINT_FILE), false, 'no checkpoint yet: none is carried');
        assert.ok(
          verifyRunDir(uncovered, { checkpointKey: key.publicKey }).runs.every((r) =>
            r.problems.some((p) => p.code === 'checkpoint_missing'),
          ),
        );
        await makeCheckpoint(keel.store, 'acme', key);
        const { files } = await exportRunDir(keel, 'acme', { workflowId: 'carry' }, { now: NOW });
        const true_ = verifyRunDir(files, { checkpointKey: key.publicKey });
        assert.equal(
          true_.ok,
          true,
          JSON.stringify(true_.runs.flatMap((r) => r.problems).concat(true_.problems)),
        );
        assert.deepEqual(
          true_.runs.map((r) => [r.runId, r.checkpoint?.checkpoint, r.checkpoint?.verified]),
          ids.map((id) => [id, 1, true]),
        );
        assert.equal(true_.checkpoint?.under, 'key');

        // Rewritten whole, checkpoint.json kept: the chain holds, the checkpointed head does not.
        const forged = reforge(files, ids[1]!, 1);
        const plain = verifyRunDir(forged);
        assert.deepEqual(
          plain.runs.find((r) => r.runId === ids[1])?.problems.map((p) => p.code),
          ['checkpoint_mismatch'],
          'even without the key, the carried checkpoint tells',
        );
        const keyed = verifyRunDir(forged, { checkpointKey: key.publicKey });
        const hit = keyed.runs.find((r) => r.runId === ids[1])!.problems[0]!;
        // Named at the checkpointed head (the run's last line here), whose hash the rewrite changed.
        assert.deepEqual([hit.code, hit.line], ['checkpoint_mismatch', true_.runs[1]!.entries]);
        assert.match(
          hit.message,
          /checkpoint 1 recorded .*: the run was rewritten after it was checkpointed/,
        );
        // The same, with the checkpoint dropped: only the key tells.
        const dropped = reforge(files, ids[1]!, 1, CHECKPOINT_FILE);
        assert.equal(verifyRunDir(dropped).ok, true, 'without the key, a consistent rewrite is consistent');
        const demanded = verifyRunDir(dropped, { checkpointKey: key.publicKey });
        assert.equal(demanded.ok, false);
        assert.ok(demanded.runs.every((r) => r.problems.some((p) => p.code === 'checkpoint_missing')));
        // A checkpoint signed by another key is not the operator's.
        const theirs = verifyRunDir(files, { checkpointKey: other.publicKey });
        assert.match(
          theirs.problems[0]?.message ?? '',
          /signed by key sha256:[0-9a-f]+, not the checkpoint key given/,
        );
        // A proof that does not lead to the signed log is named.
        const cf = JSON.parse(new TextDecoder().decode(files.get(CHECKPOINT_FILE))) as CheckpointFile;
        const bent = reforgeFile(files, CHECKPOINT_FILE, {
          ...cf,
          runs: {
            ...cf.runs,
            [ids[0]!]: { ...cf.runs[ids[0]!]!, leafIndex: cf.runs[ids[0]!]!.leafIndex + 1 },
          },
        });
        assert.match(
          verifyRunDir(bent).runs.find((r) => r.runId === ids[0])?.problems[0]?.message ?? '',
          /is not in the head log checkpoint 1 signed/,
        );
      } finally {
        await keel.close();
      }
    });
  });

  /** The directory with one JSON file replaced and the manifest recomputed. */
  function reforgeFile(files: ReadonlyMap<string, Uint8Array>, file: string, value: unknown) {
    const out = new Map(files);
    out.set(file, jsonFile(value));
    const m = JSON.parse(new TextDecoder().decode(files.get('manifest.json'))) as Manifest;
    const { contentHash: _, ...rest } = m;
    out.set(
      'manifest.json',
      jsonFile(sealManifest({ ...rest, files: { ...m.files, [file]: fileDigest(out.get(file)!) } })),
    );
    return out;
  }
});
