import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseRunId, pathRunId, projectId, unprojectId, wireRunId } from './run-ids.ts';

const hex = fc.stringMatching(/^[0-9a-f]{64}$/);
const tenant = fc.stringMatching(/^[A-Za-z0-9._~-]{1,32}$/);

test('property: every wire and path form of a run id reads back as the same run, in its tenant', () => {
  fc.assert(
    fc.property(hex, tenant, (h, t) => {
      const runId = `sha256:${h}`;
      for (const major of [1, 2] as const) {
        assert.deepEqual(parseRunId(pathRunId(runId, t, major), t), { ok: true, runId });
        assert.deepEqual(parseRunId(encodeURIComponent(wireRunId(runId, t, major)), t), { ok: true, runId });
        // The projection leaves nothing a proxy may rewrite: only unreserved characters.
        assert.equal(encodeURIComponent(pathRunId(runId, t, major)), pathRunId(runId, t, major));
      }
      assert.equal(wireRunId(runId, t, 1), h);
      assert.equal(wireRunId(runId, t, 2), `${t}/${h}`);
    }),
  );
});

test('property: the ~ projection is injective over any text and reads back exactly once', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (id) => {
      assert.equal(unprojectId(projectId(id)), id);
      // Applied twice it names something else: a host that projects twice strands its own links.
      if (projectId(id) !== id) assert.notEqual(unprojectId(projectId(projectId(id))), id);
    }),
  );
});

test('a bound id of another tenant is a mismatch whether or not the run exists', () => {
  const h = 'a'.repeat(64);
  assert.deepEqual(parseRunId(`other~2F${h}`, 'acme'), { ok: false, reason: 'tenant_mismatch' });
  assert.deepEqual(parseRunId(`other%2F${h}`, 'acme'), { ok: false, reason: 'tenant_mismatch' });
});

test('a broken escape is malformed (400); a well-formed id Keel never minted is unknown (404)', () => {
  const h = 'a'.repeat(64);
  for (const junk of ['acme~2', 'acme~ZZabc', `acme~2G${h}`, '%E0%A4%A', 'acme~C3~28'])
    assert.deepEqual(parseRunId(junk, 'acme'), { ok: false, reason: 'malformed' }, junk);
  for (const unknown of ['', 'abc', `${h}0`, `acme~2F${h.slice(1)}`, `acme~7E2F${h}`])
    assert.deepEqual(parseRunId(unknown, 'acme'), { ok: false, reason: 'unknown' }, unknown);
});
