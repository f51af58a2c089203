/**
 * The Store contract for `keel serve`: API keys (stored as hashes, found by hash, listed and
 * revoked per tenant) and idempotency records (claim, finish, release; leases, mismatches, the
 * TTL, tenants kept apart, and exactly one winner among concurrent claims, also across two handles
 * of one store). Registered by `runStoreContract`, so SQLite and PostgreSQL obey the same rules.
 *
 * The contract store is shared with the other contract tests: every test uses its own tenants and
 * keys, so it sees only its own records.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { createApiKey, hashApiKey, resolveApiKey } from '../app/api-keys.ts';
import { IDEMPOTENCY_TTL_MS, type IdempotencyRef, type Store } from '../ports/index.ts';

const unique = (label: string) => `${label}-${randomBytes(6).toString('hex')}`;
const T0 = Date.UTC(2026, 0, 1);
const LEASE = 30_000;

function ref(tenant = unique('t'), operation = 'POST /v1/runs'): IdempotencyRef {
  return { tenant, operation, key: unique('idem-key-0123456789') };
}

export function keysIdempotencyContract(current: () => Store, another?: () => Store): void {
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
      const first = await createApiKey(store, a, 'alice', '2026-01-01T00:00:00.000Z');
      const second = await createApiKey(store, a, undefined, '2026-01-02T00:00:00.000Z');
      const other = await createApiKey(store, b, 'bob', '2026-01-01T00:00:00.000Z');
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
      assert.equal((await resolveApiKey(store, first.key))?.tenant, a, 'another tenant cannot revoke it');
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
      const created = await createApiKey(store, tenant, 'deploy-bot', '2026-01-01T00:00:00.000Z');
      assert.match(created.key, /^keel_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(await resolveApiKey(store, created.key), {
        tenant,
        subject: 'deploy-bot',
        keyId: created.keyId,
        kind: 'service',
      });
      // A person's key says so: only a person may promote a version.
      const person = await createApiKey(store, tenant, 'dana', '2026-01-01T00:00:00.000Z', 'human');
      assert.equal((await resolveApiKey(store, person.key))?.kind, 'human');
      const last = created.key.at(-1) === 'A' ? 'B' : 'A';
      assert.equal(await resolveApiKey(store, `${created.key.slice(0, -1)}${last}`), undefined);
      assert.equal(await resolveApiKey(store, ''), undefined);
      assert.equal(await resolveApiKey(store, created.keyId), undefined);
      await store.keys.revokeApiKey(tenant, created.keyId, '2026-01-02T00:00:00.000Z');
      assert.equal(await resolveApiKey(store, created.key), undefined);
    });
  });

  describe('idempotency records', () => {
    test('claim, then claim again: the second is in flight', async () => {
      const store = current();
      const r = ref();
      assert.deepEqual(
        await store.idempotency.claimIdempotency({ ...r, digest: 'd1', now: T0, leaseMs: LEASE }),
        {
          state: 'claimed',
        },
      );
      assert.deepEqual(
        await store.idempotency.claimIdempotency({ ...r, digest: 'd1', now: T0 + 1, leaseMs: LEASE }),
        {
          state: 'in_flight',
        },
      );
    });

    test('claim, finish, claim with the same digest: the cached response, byte for byte', async () => {
      const store = current();
      const r = ref();
      await store.idempotency.claimIdempotency({ ...r, digest: 'd1', now: T0, leaseMs: LEASE });
      const body = '{"runId":"sha256:abc","status":"running"}\n';
      assert.equal(
        await store.idempotency.finishIdempotency({
          ...r,
          status: 201,
          body,
          headers: { location: '/v1/runs/abc' },
        }),
        true,
      );
      assert.deepEqual(
        await store.idempotency.claimIdempotency({ ...r, digest: 'd1', now: T0 + 10, leaseMs: LEASE }),
        {
          state: 'done',
          status: 201,
          body,
          headers: { location: '/v1/runs/abc' },
        },
      );
      // Well past the lease, a finished record still answers with its response.
      assert.deepEqual(
        await store.idempotency.claimIdempotency({
          ...r,
          digest: 'd1',
          now: T0 + 10 * LEASE,
          leaseMs: LEASE,
        }),
        {
          state: 'done',
          status: 201,
          body,
          headers: { location: '/v1/runs/abc' },
        },
      );
      assert.equal(
        await store.idempotency.finishIdempotency({ ...r, status: 500, body: 'again' }),
        false,
        'finished once',
      );
      const plain = ref();
      await store.idempotency.claimIdempotency({ ...plain, digest: 'd', now: T0, leaseMs: LEASE });
      await store.idempotency.finishIdempotency({ ...plain, status: 200, body: '' });
      assert.deepEqual(
        await store.idempotency.claimIdempotency({ ...plain, digest: 'd', now: T0, leaseMs: LEASE }),
        {
          state: 'done',
          status: 200,
          body: '',
        },
      );
    });

    test('another digest under the same key is a mismatch, in flight, expired or done', async () => {
      const store = current();
      const r = ref();
      await store.idempotency.claimIdempotency({ ...r, digest: 'd1', now: T0, leaseMs: LEASE });
      assert.deepEqual(
        await store.idempotency.claimIdempotency({ ...r, digest: 'd2', now: T0 + 1, leaseMs: LEASE }),
        {
          state: 'mismatch',
        },
      );
      assert.deepEqual(
        await store.idempotency.claimIdempotency({ ...r, digest: 'd2', now: T0 + LEASE + 1, leaseMs: LEASE }),
        { state: 'mismatch' },
        'an expired lease is taken over only by the same request',
      );
      await store.idempotency.finishIdempotency({ ...r, status: 200, body: '{}' });
      assert.deepEqual(
        await store.idempotency.claimIdempotency({ ...r, digest: 'd2', now: T0 + 2, leaseMs: LEASE }),
        {
          state: 'mismatch',
        },
      );
    });

    test('release forgets an in-flight record, so the key can be claimed afresh (with any digest)', async () => {
      const store = current();
      const r = ref();
      await store.idempotency.claimIdempotency({ ...r, digest: 'd1', now: T0, leaseMs: LEASE });
      assert.equal(await store.idempotency.releaseIdempotency(r), true);
      assert.equal(await store.idempotency.releaseIdempotency(r), false);
      assert.equal(
        await store.idempotency.finishIdempotency({ ...r, status: 200, body: '{}' }),
        false,
        'nothing to finish',
      );
      assert.deepEqual(
        await store.idempotency.claimIdempotency({ ...r, digest: 'd2', now: T0 + 1, leaseMs: LEASE }),
        {
          state: 'claimed',
        },
      );
      await store.idempotency.finishIdempotency({ ...r, status: 200, body: '{}' });
      assert.equal(await store.idempotency.releaseIdempotency(r), false, 'a finished record is not released');
      assert.equal(
        (await store.idempotency.claimIdempotency({ ...r, digest: 'd2', now: T0 + 2, leaseMs: LEASE })).state,
        'done',
      );
    });

    test('an expired lease is taken over by the same request, and the new lease holds', async () => {
      const store = current();
      const r = ref();
      await store.idempotency.claimIdempotency({ ...r, digest: 'd1', now: T0, leaseMs: 1000 });
      assert.equal(
        (await store.idempotency.claimIdempotency({ ...r, digest: 'd1', now: T0 + 1000, leaseMs: LEASE }))
          .state,
        'in_flight',
      );
      assert.equal(
        (await store.idempotency.claimIdempotency({ ...r, digest: 'd1', now: T0 + 1001, leaseMs: LEASE }))
          .state,
        'claimed',
      );
      assert.equal(
        (await store.idempotency.claimIdempotency({ ...r, digest: 'd1', now: T0 + 2000, leaseMs: LEASE }))
          .state,
        'in_flight',
      );
      assert.equal(
        (
          await store.idempotency.claimIdempotency({
            ...r,
            digest: 'd1',
            now: T0 + 1001 + LEASE + 1,
            leaseMs: LEASE,
          })
        ).state,
        'claimed',
      );
    });

    test('records older than the TTL count as absent, finished or not', async () => {
      const store = current();
      const r = ref();
      await store.idempotency.claimIdempotency({ ...r, digest: 'd1', now: T0, leaseMs: LEASE });
      await store.idempotency.finishIdempotency({ ...r, status: 200, body: '{}' });
      const later = T0 + IDEMPOTENCY_TTL_MS;
      assert.equal(
        (await store.idempotency.claimIdempotency({ ...r, digest: 'd2', now: later, leaseMs: LEASE })).state,
        'mismatch',
      );
      assert.equal(
        (await store.idempotency.claimIdempotency({ ...r, digest: 'd2', now: later + 1, leaseMs: LEASE }))
          .state,
        'claimed',
      );
      // The replacement's age counts from its own claim.
      assert.equal(
        (await store.idempotency.claimIdempotency({ ...r, digest: 'd2', now: later + 2, leaseMs: LEASE }))
          .state,
        'in_flight',
      );
      const stale = ref();
      await store.idempotency.claimIdempotency({
        ...stale,
        digest: 'd1',
        now: T0,
        leaseMs: 10 * IDEMPOTENCY_TTL_MS,
      });
      assert.equal(
        (await store.idempotency.claimIdempotency({ ...stale, digest: 'd9', now: later + 1, leaseMs: LEASE }))
          .state,
        'claimed',
        'an in-flight record older than the TTL is gone, lease or not',
      );
    });

    test('the same key in two tenants, or for two operations, is two records', async () => {
      const store = current();
      const a = ref();
      const b = { ...a, tenant: unique('t') };
      const op = { ...a, operation: 'POST /v1/events' };
      for (const r of [a, b, op]) {
        assert.equal(
          (await store.idempotency.claimIdempotency({ ...r, digest: 'd1', now: T0, leaseMs: LEASE })).state,
          'claimed',
        );
      }
      await store.idempotency.finishIdempotency({ ...a, status: 201, body: '"a"' });
      assert.equal(
        (await store.idempotency.claimIdempotency({ ...b, digest: 'd1', now: T0, leaseMs: LEASE })).state,
        'in_flight',
      );
      assert.equal(await store.idempotency.releaseIdempotency(b), true);
      assert.equal(
        (await store.idempotency.claimIdempotency({ ...a, digest: 'd1', now: T0, leaseMs: LEASE })).state,
        'done',
      );
      assert.equal(
        (await store.idempotency.claimIdempotency({ ...op, digest: 'd2', now: T0, leaseMs: LEASE })).state,
        'mismatch',
      );
      assert.equal(
        (await store.idempotency.claimIdempotency({ ...b, digest: 'd2', now: T0, leaseMs: LEASE })).state,
        'claimed',
      );
    });

    test('ten concurrent claims of one key: exactly one is claimed, the others see it in flight', async () => {
      const stores = another ? [current(), another()] : [current()];
      for (let round = 0; round < 3; round++) {
        const r = ref();
        const outcomes = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            stores[i % stores.length]!.idempotency.claimIdempotency({
              ...r,
              digest: 'd1',
              now: T0,
              leaseMs: LEASE,
            }),
          ),
        );
        const states = outcomes.map((o) => o.state).sort();
        assert.deepEqual(states, ['claimed', ...Array<string>(9).fill('in_flight')]);
      }
    });

    test('ten concurrent takeovers of one expired lease: exactly one wins', async () => {
      const stores = another ? [current(), another()] : [current()];
      const r = ref();
      await current().idempotency.claimIdempotency({ ...r, digest: 'd1', now: T0, leaseMs: 10 });
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          stores[i % stores.length]!.idempotency.claimIdempotency({
            ...r,
            digest: 'd1',
            now: T0 + 100,
            leaseMs: LEASE,
          }),
        ),
      );
      assert.equal(outcomes.filter((o) => o.state === 'claimed').length, 1);
    });
  });
}
