/**
 * The keys' contract for governance in the store: a tenant's trusted writ keys (added once, listed
 * oldest first, retired but never deleted, re-adding changes nothing) and revoked writs (revoked
 * once, the first revocation stands, listed per tenant). Registered by `runStoreContract`, so
 * SQLite and PostgreSQL obey the same rules; every test uses its own tenants.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Digest } from '../core/canonical/index.ts';
import { keyIdOf } from '../core/writs/index.ts';
import type { Store } from '../ports/index.ts';

const unique = (label: string) => `${label}-${randomBytes(6).toString('hex')}`;
const hashOf = () => `sha256:${randomBytes(32).toString('hex')}` as Digest;

function publicKey(): { keyId: Digest; publicKeyPem: string } {
  const { publicKey } = generateKeyPairSync('ed25519');
  return {
    keyId: keyIdOf(publicKey) as Digest,
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

export function writTrustContract(current: () => Store, another?: () => Store): void {
  describe('trusted writ keys and revoked writs', () => {
    test('keys are added once per tenant, listed oldest first, and retired (never deleted) within their tenant', async () => {
      const store = current();
      const [a, b] = [unique('acme'), unique('globex')];
      const k1 = publicKey();
      const k2 = publicKey();
      const first = await store.keys.addTrustedKey({
        tenant: a,
        ...k1,
        addedBy: 'alice',
        addedAt: '2026-01-01T00:00:00.000Z',
      });
      assert.equal(first.created, true);
      assert.deepEqual(first.record, {
        tenant: a,
        keyId: k1.keyId,
        publicKeyPem: k1.publicKeyPem,
        addedBy: 'alice',
        addedAt: '2026-01-01T00:00:00.000Z',
      });
      await store.keys.addTrustedKey({
        tenant: a,
        ...k2,
        addedBy: 'bob',
        addedAt: '2026-01-02T00:00:00.000Z',
      });
      // The same key in another tenant is another row.
      await store.keys.addTrustedKey({
        tenant: b,
        ...k1,
        addedBy: 'carol',
        addedAt: '2026-01-03T00:00:00.000Z',
      });
      assert.deepEqual(
        (await store.keys.listTrustedKeys(a)).map((k) => k.keyId),
        [k1.keyId, k2.keyId],
      );
      assert.deepEqual(
        (await store.keys.listTrustedKeys(b)).map((k) => [k.keyId, k.addedBy]),
        [[k1.keyId, 'carol']],
      );
      assert.deepEqual(await store.keys.listTrustedKeys(unique('nobody')), []);

      // Re-adding changes nothing: the first record stands.
      const again = await store.keys.addTrustedKey({
        tenant: a,
        ...k1,
        addedBy: 'mallory',
        addedAt: '2026-02-01T00:00:00.000Z',
      });
      assert.equal(again.created, false);
      assert.equal(again.record.addedBy, 'alice');

      assert.equal(await store.keys.retireTrustedKey(b, k2.keyId, '2026-01-04T00:00:00.000Z'), false);
      assert.equal(await store.keys.retireTrustedKey(a, 'sha256:nope', '2026-01-04T00:00:00.000Z'), false);
      assert.equal(await store.keys.retireTrustedKey(a, k1.keyId, '2026-01-04T00:00:00.000Z'), true);
      assert.equal(await store.keys.retireTrustedKey(a, k1.keyId, '2026-01-05T00:00:00.000Z'), true);
      const listed = await store.keys.listTrustedKeys(a);
      assert.equal(listed.length, 2, 'a retired key is kept');
      assert.equal(listed[0]?.retiredAt, '2026-01-04T00:00:00.000Z', 'retiring twice keeps the first time');
      assert.equal(listed[1]?.retiredAt, undefined);
      assert.equal(
        (await store.keys.listTrustedKeys(b))[0]?.retiredAt,
        undefined,
        'other tenants unaffected',
      );

      // A retired key added again stays retired.
      const readded = await store.keys.addTrustedKey({
        tenant: a,
        ...k1,
        addedBy: 'alice',
        addedAt: '2026-02-02T00:00:00.000Z',
      });
      assert.equal(readded.created, false);
      assert.equal(readded.record.retiredAt, '2026-01-04T00:00:00.000Z');
    });

    test('a writ is revoked once per tenant; the first revocation stands; other tenants unaffected', async () => {
      const store = current();
      const [a, b] = [unique('acme'), unique('globex')];
      const [h1, h2] = [hashOf(), hashOf()];
      const r1 = await store.keys.revokeWrit({
        tenant: a,
        hash: h1,
        by: 'alice',
        at: '2026-01-01T00:00:00.000Z',
        reason: 'leaked',
      });
      assert.equal(r1.created, true);
      assert.deepEqual(r1.record, {
        tenant: a,
        hash: h1,
        by: 'alice',
        at: '2026-01-01T00:00:00.000Z',
        reason: 'leaked',
      });
      const r2 = await store.keys.revokeWrit({
        tenant: a,
        hash: h2,
        by: 'bob',
        at: '2026-01-02T00:00:00.000Z',
      });
      assert.deepEqual(r2.record, { tenant: a, hash: h2, by: 'bob', at: '2026-01-02T00:00:00.000Z' });
      const again = await store.keys.revokeWrit({
        tenant: a,
        hash: h1,
        by: 'mallory',
        at: '2026-02-01T00:00:00.000Z',
      });
      assert.equal(again.created, false);
      assert.equal(again.record.by, 'alice');
      assert.equal(again.record.reason, 'leaked');
      assert.deepEqual(
        (await store.keys.listRevokedWrits(a)).map((r) => r.hash),
        [h1, h2],
      );
      assert.deepEqual(await store.keys.listRevokedWrits(b), []);
      await store.keys.revokeWrit({ tenant: b, hash: h1, by: 'carol', at: '2026-01-03T00:00:00.000Z' });
      assert.deepEqual(
        (await store.keys.listRevokedWrits(b)).map((r) => [r.hash, r.by]),
        [[h1, 'carol']],
      );
      assert.equal((await store.keys.listRevokedWrits(a)).length, 2);
    });

    test('writ chains are stored by content, per tenant: a second put of a hash changes nothing', async () => {
      const store = current();
      const [a, b] = [unique('acme'), unique('globex')];
      const h = hashOf();
      assert.equal(await store.keys.getWritChain(a, h), undefined);
      await store.keys.putWritChain(a, h, '[{"body":1}]');
      await store.keys.putWritChain(a, h, '[{"body":2}]');
      assert.equal(await store.keys.getWritChain(a, h), '[{"body":1}]');
      assert.equal(await store.keys.getWritChain(b, h), undefined, 'another tenant does not see it');
      await store.keys.putWritChain(b, h, '[{"body":3}]');
      assert.equal(await store.keys.getWritChain(b, h), '[{"body":3}]');
      assert.equal(await store.keys.getWritChain(a, h), '[{"body":1}]');
    });

    if (another)
      test('what one handle stores, another handle of the same store reads', async () => {
        const tenant = unique('acme');
        const k = publicKey();
        const h = hashOf();
        await current().keys.addTrustedKey({
          tenant,
          ...k,
          addedBy: 'a',
          addedAt: '2026-01-01T00:00:00.000Z',
        });
        await current().keys.revokeWrit({ tenant, hash: h, by: 'a', at: '2026-01-01T00:00:00.000Z' });
        await current().keys.putWritChain(tenant, h, '[]');
        assert.equal(await another().keys.getWritChain(tenant, h), '[]');
        assert.deepEqual(
          (await another().keys.listTrustedKeys(tenant)).map((x) => x.keyId),
          [k.keyId],
        );
        assert.deepEqual(
          (await another().keys.listRevokedWrits(tenant)).map((x) => x.hash),
          [h],
        );
      });
  });
}
