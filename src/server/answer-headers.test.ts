import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inProcessServer } from '../../test/helpers/in-process-server.ts';

const srv = inProcessServer();

describe('answer headers', () => {
  test('every answer carrying a tenant’s data, or a refusal, is nosniff and no-store', async () => {
    const answers = [
      ['GET', '/api/runs', {}, 200],
      ['GET', '/api/session', {}, 200],
      ['GET', '/api/approvals', {}, 200],
      ['GET', '/api/workflows', {}, 200],
      ['GET', `/api/runs/sha256:${'0'.repeat(64)}`, {}, 404],
      ['GET', '/api/runs', { key: null }, 401],
      ['GET', '/api/runs?limit=nope', {}, 400],
      ['POST', '/api/events', { body: { type: 'x' } }, 400],
      ['GET', '/api/no-such-route', {}, 404],
      ['GET', '/v1/runs', {}, 200],
      ['GET', '/openapi.json', {}, 200],
    ] as const;
    for (const [method, path, o, status] of answers) {
      const r = await srv.api(method, path, o);
      assert.equal(r.status, status, `${method} ${path}: ${r.text}`);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', `${method} ${path}`);
      assert.equal(r.headers.get('cache-control'), 'no-store', `${method} ${path}`);
    }
  });

  test('an answer that sets its own caching keeps it, and is nosniff too', async () => {
    const discovery = await srv.api('GET', '/.well-known/openwop', { key: null });
    assert.equal(discovery.status, 200);
    assert.equal(discovery.headers.get('cache-control'), 'no-cache');
    assert.equal(discovery.headers.get('x-content-type-options'), 'nosniff');
  });
});
