import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inProcessServer } from '../../test/helpers/in-process-server.ts';

const srv = inProcessServer();

const SPEC = {
  id: 'after-revoke',
  version: 1,
  status: 'DRAFT',
  triggers: [{ event: 'go' }],
  steps: [{ name: 'noop', tool: 'core.noop' }],
  limits: { maxSteps: 1, maxCostUsd: 0 },
};

describe('a revoked API key', () => {
  test('is refused with 401 on the Keel API and the OpenWOP surface, and changes nothing; other keys still work', async () => {
    const created = await srv.keel.keys.create('acme', 'temp');
    const before = await srv.api('GET', '/api/runs', { key: created.key });
    assert.equal(before.status, 200, 'the key works before it is revoked');

    await srv.keel.keys.revoke('acme', created.keyId);
    for (const [method, path, body] of [
      ['GET', '/api/runs', undefined],
      ['POST', '/api/workflows', SPEC],
      ['GET', '/api/approvals', undefined],
      ['GET', '/v1/runs', undefined],
      ['POST', '/v1/runs', { workflowId: 'conformance-noop' }],
    ] as const) {
      const r = await srv.api(method, path, { key: created.key, ...(body ? { body } : {}) });
      assert.equal(r.status, 401, `${method} ${path}: ${r.text}`);
      assert.equal(r.body.error, 'unauthenticated');
      assert.equal(r.headers.get('www-authenticate'), 'Bearer');
      assert.match(String(r.body.message), /not valid or was revoked/);
    }
    assert.deepEqual(
      (await srv.keel.workflows.list('acme')).filter((v) => v.workflowId === SPEC.id),
      [],
      'the refused publish stored nothing',
    );
    assert.deepEqual((await srv.keel.runs.list('acme')).runs, [], 'the refused run request started nothing');

    // The tenant's other key, and another tenant's, are untouched.
    assert.equal((await srv.api('GET', '/api/runs', { key: srv.acme })).status, 200);
    assert.equal((await srv.api('GET', '/api/runs', { key: srv.globex })).status, 200);
  });
});
