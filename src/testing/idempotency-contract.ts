/**
 * The contract of idempotency records (ports/idempotency.ts), bound on every adapter through
 * runStoreContract: claim, finish, release; leases, mismatches, the TTL, tenants kept apart, and
 * exactly one winner among concurrent claims, also across two handles of one store.
 *
 * The contract store is shared with the other contract tests: every test uses its own tenants and
 * keys, so it sees only its own records.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { IDEMPOTENCY_TTL_MS, type IdempotencyRef, type Store } from '../ports/index.ts';

const unique = (label: string) => `${label}-${randomBytes(6).toString('hex')}`;
const T0 = Date.UTC(2026, 0, 1);
const LEASE = 30_000;

function ref(tenant = unique('t'), operation = 'POST /v1/runs'): IdempotencyRef {
  return { tenant, operation, key: unique('idem-key-0123456789') };
}

export function idempotencyContract(current: () => Store, another?: () => Store): void {
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
