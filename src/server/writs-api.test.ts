/**
 * Writs over the Keel API (`/api/writs/*`, and `POST /api/workflows/{id}/runs` with `{event, writ}`), on a real
 * server app over an in-memory store: stored trusted keys per tenant, inspecting a writ against
 * them, revoking a writ (by hash or by the writ) so it starts no run, tenants kept apart (the
 * tenant is always the key's, never the body's), and bad input naming the field.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inProcessServer, type Json } from '../../test/helpers/in-process-server.ts';
import { keyPair, signedRoot } from '../core/writs/fixtures.test-helpers.ts';
import { attenuate, signWrit, writHash } from '../core/writs/index.ts';
import { setStatus } from '../testing/index.ts';
import { KEEL_ROUTES } from './keel-routes.ts';

const SPEC = {
  id: 'plain',
  version: 1,
  status: 'DRAFT',
  triggers: [{ event: 'ping' }],
  steps: [{ name: 'a', tool: 'core.noop' }],
  limits: { maxSteps: 2, maxCostUsd: 0 },
};
const WINDOW = { notBefore: '2000-01-01T00:00:00Z', notAfter: '2100-01-01T00:00:00Z' };

const t = inProcessServer();
const api = t.api;

let n = 0;
const event = () => ({ id: `evt-${++n}`, type: 'ping', time: '2026-01-31T12:00:00Z' });

function writsFor(tenant: string) {
  const k = keyPair(tenant);
  const root = signedRoot(k, { tenant, scopes: ['*'], window: WINDOW });
  const c = attenuate(root.body, { id: 'child', subject: 'x', issuer: k.trusted.keyId }, root.body.budget);
  assert.ok(c.ok);
  const child = signWrit(c.body, k.privateKey);
  return { pem: k.publicKey.export({ type: 'spki', format: 'pem' }).toString(), root, chain: [root, child] };
}

/** Publishes SPEC as the key's tenant, then puts it at LIVE directly (a fixture: writs are the subject here). */
async function live(key: string, tenant: string) {
  const published = await api('POST', '/api/workflows', { key, body: SPEC });
  assert.equal(published.status, 201);
  assert.equal(published.body.tenant, tenant, 'published in the key’s tenant');
  await setStatus(t.keel, tenant, 'plain', 1, 'LIVE');
}

test('trusted keys are stored per tenant; a writ verifies against them, runs under it, and once revoked starts no run', async () => {
  await live(t.acme, 'acme');
  await live(t.globex, 'globex');
  const a = writsFor('acme');
  const g = writsFor('globex');

  // Before trusting: the writ does not verify and starts no run.
  const untrusted = await api('POST', '/api/writs/inspect', { body: { writ: { chain: a.chain } } });
  assert.equal(untrusted.status, 200);
  assert.equal(untrusted.body.verified, false);
  assert.equal((untrusted.body.refusal as Json).code, 'writ_chain_untrusted');
  const refused = await api('POST', '/api/workflows/plain/runs', {
    body: { event: event(), writ: { chain: a.chain } },
  });
  assert.equal(refused.status, 403, refused.text);
  assert.match(refused.text, /writ_chain_untrusted/);

  const added = await api('POST', '/api/writs/trusted-keys', { body: { publicKeyPem: a.pem } });
  assert.equal(added.status, 201, added.text);
  assert.equal((added.body.record as Json).tenant, 'acme');
  assert.equal((added.body.record as Json).addedBy, 'dana');
  assert.equal((await api('POST', '/api/writs/trusted-keys', { body: { publicKeyPem: a.pem } })).status, 200);
  assert.equal(
    (await api('POST', '/api/writs/trusted-keys', { key: t.globex, body: { publicKeyPem: g.pem } })).status,
    201,
  );
  const listed = await api('GET', '/api/writs/trusted-keys');
  assert.deepEqual(
    (listed.body.keys as Json[]).map((k) => k.tenant),
    ['acme'],
  );

  const inspected = await api('POST', '/api/writs/inspect', { body: { writ: a.chain } });
  assert.equal(inspected.body.verified, true);
  assert.equal(inspected.body.hash, writHash(a.chain[1]!));
  assert.equal((inspected.body.chain as Json[]).length, 2);
  // Another tenant's key verifies nothing of acme's.
  const foreign = await api('POST', '/api/writs/inspect', { key: t.globex, body: { writ: a.chain } });
  assert.equal(foreign.body.verified, false);

  const started = await api('POST', '/api/workflows/plain/runs', {
    body: { event: event(), writ: { chain: a.chain } },
  });
  assert.equal(started.status, 201, started.text);
  const runId = started.body.runId as string;
  await t.server.host.drain();
  const entries = await api('GET', `/api/runs/${runId}/entries`);
  const root = (entries.body.entries as Json[])[0] as { payload: { writ?: { hash: string } } };
  assert.equal(root.payload.writ?.hash, writHash(a.chain[1]!));
  // Without a writ, the same route starts a plain run.
  assert.equal((await api('POST', '/api/workflows/plain/runs', { body: { event: event() } })).status, 201);

  // Revoking the root (by hash) revokes the child below it; globex revoking the same hash is its own.
  const revoked = await api('POST', '/api/writs/revoke', {
    body: { hash: writHash(a.root), reason: 'rotated' },
  });
  assert.equal(revoked.status, 201, revoked.text);
  assert.deepEqual(
    { by: (revoked.body.record as Json).by, reason: (revoked.body.record as Json).reason },
    { by: 'dana', reason: 'rotated' },
  );
  assert.equal((await api('POST', '/api/writs/revoke', { body: { writ: { chain: [a.root] } } })).status, 200);
  const after = await api('POST', '/api/writs/inspect', { body: { writ: { chain: a.chain } } });
  assert.equal((after.body.refusal as Json).code, 'writ_revoked');
  assert.equal((after.body.revoked as Json).reason, 'rotated');
  const again = await api('POST', '/api/workflows/plain/runs', { body: { event: event(), writ: a.chain } });
  assert.equal(again.status, 403);
  assert.match(again.text, /writ_revoked/);

  // globex is unaffected, and cannot revoke acme's writ by presenting it (another tenant's writ).
  const gStarted = await api('POST', '/api/workflows/plain/runs', {
    key: t.globex,
    body: { event: event(), writ: g.chain },
  });
  assert.equal(gStarted.status, 201, gStarted.text);
  const cross = await api('POST', '/api/writs/revoke', { key: t.globex, body: { writ: { chain: a.chain } } });
  assert.equal(cross.status, 403);
  assert.equal(
    Array.isArray((await api('GET', '/api/writs/trusted-keys', { key: t.globex })).body.keys),
    true,
  );
  await t.server.host.drain();
});

test('bad writ input is refused naming the field, and changes nothing', async () => {
  const both = await api('POST', '/api/writs/revoke', {
    body: { hash: `sha256:${'1'.repeat(64)}`, writ: [{}] },
  });
  assert.equal(both.status, 400);
  const badHash = await api('POST', '/api/writs/revoke', { body: { hash: 'nope' } });
  assert.equal(badHash.status, 400);
  assert.match(badHash.text, /hash/);
  const badKey = await api('POST', '/api/writs/trusted-keys', { body: { publicKeyPem: 'not a key' } });
  assert.equal(badKey.status, 400);
  assert.match(badKey.text, /publicKeyPem/);
  const badWrit = await api('POST', '/api/writs/inspect', { body: { writ: [{ body: {} }] } });
  assert.equal(badWrit.status, 400);
  assert.match(badWrit.text, /chain\[0\]/);
  const tenantInBody = await api('POST', '/api/writs/trusted-keys', {
    body: { publicKeyPem: writsFor('acme').pem, tenant: 'globex' },
  });
  assert.equal(tenantInBody.status, 400, 'the tenant is the key’s, never the body’s');
});

test('the writ routes are in the OpenAPI document', async () => {
  const doc = await api('GET', '/openapi.json');
  const paths = doc.body.paths as Json;
  for (const p of ['/api/writs/inspect', '/api/writs/revoke', '/api/writs/trusted-keys'])
    assert.ok(paths[p], `${p} documented`);
  assert.ok(KEEL_ROUTES.some((r) => r.operationId === 'revokeWrit'));
});
