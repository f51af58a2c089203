/**
 * Writ chains by content on a real SQLite file: what one Keel stores when it admits a writ, another
 * handle reads back by the hash a run's root names; a hash with no chain, or a stored chain that
 * does not end in that writ, is a broken store (ledger_invalid), never an empty chain.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { SqliteStore } from '../adapters/sqlite/index.ts';
import { canonicalize } from '../core/canonical/index.ts';
import { keyPair, signedRoot } from '../core/writs/fixtures.test-helpers.ts';
import { writHash } from '../core/writs/index.ts';
import { admitWrit } from './governance.ts';
import { WritChains } from './writ-chains.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-writ-chains-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('an admitted chain is stored once by content and read back by its hash from another handle', async () => {
  const path = join(dir, 'a.db');
  const k = keyPair('acme');
  const root = signedRoot(k);
  const admitted = admitWrit([root], 'acme', [k.trusted]);
  const store = new SqliteStore(path);
  const chains = new WritChains(store.keys);
  assert.deepEqual(await chains.record('acme', admitted), { hash: writHash(root) });
  const commits = store.stats().commits;
  await chains.record('acme', admitted);
  assert.equal(store.stats().commits, commits, 'a writ this process stored is not written again');
  await store.close();

  const other = new SqliteStore(path);
  const read = await new WritChains(other.keys).chainOf('acme', admitted.hash);
  assert.equal(canonicalize(read), canonicalize([root]));
  await assert.rejects(new WritChains(other.keys).chainOf('globex', admitted.hash), /not in this store/);
  await other.close();
});

test('a hash with no stored chain, or a chain that ends in another writ, is ledger_invalid', async () => {
  const store = new SqliteStore(join(dir, 'b.db'));
  const k = keyPair('acme');
  const [one, two] = [signedRoot(k, { id: 'one' }), signedRoot(k, { id: 'two' })];
  const chains = new WritChains(store.keys);
  await assert.rejects(chains.chainOf('acme', writHash(one)), (e: unknown) => {
    assert.equal((e as { code?: string }).code, 'ledger_invalid');
    return /chain is not in this store/.test((e as Error).message);
  });
  await store.keys.putWritChain('acme', writHash(one), canonicalize([two]));
  await assert.rejects(chains.chainOf('acme', writHash(one)), /does not end in that writ/);
  await store.keys.putWritChain('acme', writHash(two), 'not json');
  await assert.rejects(chains.chainOf('acme', writHash(two)), /does not end in that writ/);
  // A body with no canonical form (-0) cannot be hashed: the same answer, not a canonicalizer error.
  const three = writHash(signedRoot(k, { id: 'three' }));
  await store.keys.putWritChain('acme', three, '[{"body":-0,"signature":"x"}]');
  await assert.rejects(chains.chainOf('acme', three), /does not end in that writ/);
  await store.close();
});
