/**
 * The contract of keys (ports/keys.ts), bound on every adapter through runStoreContract: API
 * keys stored as hashes, found by hash, listed and revoked per tenant; each tenant's secret key
 * stored once, whoever asks first; trusted writ keys and revoked writs (writ-trust-contract.ts).
 *
 * The contract store is shared with the other contract tests: every test uses its own tenants and
 * keys, so it sees only its own records.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { createApiKey, hashApiKey, resolveApiKey } from '../app/api-keys.ts';
import type { Store } from '../ports/index.ts';
import { count } from './contract-fixtures.ts';

const unique = (label: string) => `${label}-${randomBytes(6).toString('hex')}`;

import { writTrustContract } from './writ-trust-contract.ts';

export function keysContract(current: () => Store, another?: () => Store): void {
  describe('API keys', () => {
    test('a stored key is found by its hash alone, and listed without its hash', async () => {
      const store = current();
      const tenant = unique('acme');
      const hash = hashApiKey(unique('key'));
      await store.keys.putApiKey({
        keyId: unique('k'),
        tenant,
        subject: 'ci',
        hash,
        createdAt: '2026-01-01T00:00:00.000Z',
        kind: 'service',
      });
      const found = await store.keys.findApiKey(hash);
      assert.equal(found?.tenant, tenant);
      assert.equal(found?.subject, 'ci');
      assert.equal(found?.kind, 'service');
      assert.equal(found?.createdAt, '2026-01-01T00:00:00.000Z');
      assert.equal(found?.revokedAt, undefined);
      assert.equal(await store.keys.findApiKey(hashApiKey('not a key')), undefined);
      const listed = await store.keys.listApiKeys(tenant);
      assert.equal(listed.length, 1);
      assert.deepEqual(Object.keys(listed[0]!).sort(), ['createdAt', 'keyId', 'kind', 'subject', 'tenant']);
      assert.ok(!JSON.stringify(listed).includes(hash), 'a listing never carries the hash');
      assert.ok(!JSON.stringify(found).includes(hash), 'a lookup never carries the hash');
    });

    test('keys are listed per tenant, oldest first; revoking is scoped to the tenant and keeps the first time', async () => {
      const store = current();
      const [a, b] = [unique('a'), unique('b')];
      const first = await createApiKey(store.keys, a, 'alice', '2026-01-01T00:00:00.000Z');
      const second = await createApiKey(store.keys, a, undefined, '2026-01-02T00:00:00.000Z');
      const other = await createApiKey(store.keys, b, 'bob', '2026-01-01T00:00:00.000Z');
      assert.deepEqual(
        (await store.keys.listApiKeys(a)).map((k) => k.keyId),
        [first.keyId, second.keyId],
      );
      assert.equal(second.subject, `key-${second.keyId}`);
      assert.deepEqual(
        (await store.keys.listApiKeys(b)).map((k) => k.keyId),
        [other.keyId],
      );
      assert.equal(await store.keys.revokeApiKey(b, first.keyId, '2026-01-03T00:00:00.000Z'), false);
      assert.equal(await store.keys.revokeApiKey(a, 'no-such-key', '2026-01-03T00:00:00.000Z'), false);
      assert.equal(
        (await resolveApiKey(store.keys, first.key))?.tenant,
        a,
        'another tenant cannot revoke it',
      );
      assert.equal(await store.keys.revokeApiKey(a, first.keyId, '2026-01-03T00:00:00.000Z'), true);
      assert.equal(await store.keys.revokeApiKey(a, first.keyId, '2026-01-04T00:00:00.000Z'), true);
      const listed = await store.keys.listApiKeys(a);
      assert.equal(listed[0]?.revokedAt, '2026-01-03T00:00:00.000Z');
      assert.equal(listed[1]?.revokedAt, undefined);
      assert.equal(
        (await store.keys.findApiKey(hashApiKey(first.key)))?.revokedAt,
        '2026-01-03T00:00:00.000Z',
      );
    });

    test('a key resolves to its tenant and subject until revoked; a revoked, altered or foreign key resolves to nothing', async () => {
      const store = current();
      const tenant = unique('acme');
      const created = await createApiKey(store.keys, tenant, 'deploy-bot', '2026-01-01T00:00:00.000Z');
      assert.match(created.key, /^keel_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(await resolveApiKey(store.keys, created.key), {
        tenant,
        subject: 'deploy-bot',
        keyId: created.keyId,
        kind: 'service',
      });
      // A person's key says so: only a person may promote a version.
      const person = await createApiKey(store.keys, tenant, 'dana', '2026-01-01T00:00:00.000Z', 'human');
      assert.equal((await resolveApiKey(store.keys, person.key))?.kind, 'human');
      const last = created.key.at(-1) === 'A' ? 'B' : 'A';
      assert.equal(await resolveApiKey(store.keys, `${created.key.slice(0, -1)}${last}`), undefined);
      assert.equal(await resolveApiKey(store.keys, ''), undefined);
      assert.equal(await resolveApiKey(store.keys, created.keyId), undefined);
      await store.keys.revokeApiKey(tenant, created.keyId, '2026-01-02T00:00:00.000Z');
      assert.equal(await resolveApiKey(store.keys, created.key), undefined);
    });
  });

  describe('secret keys', () => {
    test('keeps the first secret key stored for a tenant: later candidates, other tenants and other connections agree', async () => {
      const store = current();
      const second = another?.();
      const tenant = `secret-key-${count()}`;
      const first = new Uint8Array(32).fill(7);
      const later = new Uint8Array(32).fill(9);
      assert.deepEqual(await store.keys.secretKey(tenant, first), first);
      assert.deepEqual(await store.keys.secretKey(tenant, later), first, 'the stored key never changes');
      if (second)
        assert.deepEqual(await second.keys.secretKey(tenant, later), first, 'another connection reads it');
      const other = `${tenant}-other`;
      assert.deepEqual(await store.keys.secretKey(other, later), later, 'each tenant has its own key');
      // Concurrent first uses store one key, and every caller gets that one.
      const racing = `${tenant}-race`;
      const got = await Promise.all(
        [1, 2, 3, 4].map((n) =>
          (n % 2 === 0 && second ? second : store).keys.secretKey(racing, new Uint8Array(32).fill(n)),
        ),
      );
      for (const k of got) assert.deepEqual(k, got[0]);
      await assert.rejects(store.keys.secretKey(`${tenant}-short`, new Uint8Array(16)), RangeError);
    });
  });

  writTrustContract(current, another);
}
