import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseRunId, pathRunId, wireRunId } from './run-ids.ts';

const hex = fc.stringMatching(/^[0-9a-f]{64}$/);
const tenant = fc.stringMatching(/^[A-Za-z0-9._~-]{1,32}$/);

test('property: every wire and path form of a run id reads back as the same run, in its tenant', () => {
  fc.assert(
    fc.property(hex, tenant, (h, t) => {
      const runId = `sha256:${h}`;
      for (const major of [1, 2] as const) {
        assert.deepEqual(parseRunId(pathRunId(runId, t, major), t), { ok: true, runId });
        assert.deepEqual(parseRunId(encodeURIComponent(wireRunId(runId, t, major)), t), { ok: true, runId });
      }
      assert.equal(wireRunId(runId, t, 1), h);
      assert.equal(wireRunId(runId, t, 2), `${t}/${h}`);
    }),
  );
});

test('a bound id of another tenant is a mismatch whether or not the run exists; junk is malformed', () => {
  const h = 'a'.repeat(64);
  assert.deepEqual(parseRunId(`other~2F${h}`, 'acme'), { ok: false, reason: 'tenant_mismatch' });
  assert.deepEqual(parseRunId(`other%2F${h}`, 'acme'), { ok: false, reason: 'tenant_mismatch' });
  for (const junk of ['', 'abc', `${h}0`, '%E0%A4%A', `acme~2F${h.slice(1)}`])
    assert.deepEqual(parseRunId(junk, 'acme'), { ok: false, reason: 'malformed' }, junk);
});
