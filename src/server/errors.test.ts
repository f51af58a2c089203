/**
 * On the OpenWOP surface every refusal carries an OpenWOP error code (spec/v2/core/errors.md: a
 * registered code or a vendor code `<org>.<code>`): Keel's own codes are spelt once, at that edge.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { ProtocolError } from '../openwop/protocol-error.ts';
import { errorReply, httpStatusFor, openWopErrorReply, openWopReply } from './errors.ts';

/** The registered codes Keel may answer with, and their registry statuses (spec/v2/errors.json). */
const REGISTRY: Record<string, number> = {
  validation_error: 400,
  idempotency_key_invalid: 400,
  protocol_version_mismatch: 400,
  unsupported_stream_mode: 400,
  unauthenticated: 401,
  forbidden: 403,
  id_tenant_mismatch: 403,
  not_found: 404,
  interrupt_not_found: 404,
  replay_source_missing: 404,
  protocol_version_unsupported: 406,
  idempotency_in_flight: 409,
  idempotency_key_mismatch: 409,
  interrupt_already_resolved: 409,
  run_terminal: 409,
  run_state_conflict: 409,
  version_conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  fork_point_invalid: 422,
  rate_limited: 429,
  internal_error: 500,
  runner_unavailable: 503,
};
const VENDOR = /^(?!openwop\.)[a-z][a-z0-9]*(-[a-z0-9]+)*\.[a-z][a-z0-9_]*$/;

test('every Keel code reaches an OpenWOP client as a registered code (with its status) or as keel.<code>', () => {
  for (const code of Object.values(ErrorCode)) {
    const r = openWopErrorReply(new KeelError(code, `a ${code} refusal`, { field: 'x' }));
    const spelt = r.body.error;
    if (spelt in REGISTRY) assert.equal(r.status, REGISTRY[spelt], `${code} -> ${spelt}`);
    else {
      assert.match(spelt, VENDOR, `${code} -> ${spelt}`);
      assert.equal(spelt, `keel.${code}`);
      assert.equal(r.status, httpStatusFor(code), 'a vendor code keeps the status of its meaning');
    }
    assert.equal(r.body.message, `a ${code} refusal`);
  }
  // The ones with a registered meaning are spelt as OpenWOP spells them.
  const spelt = (code: string) => openWopErrorReply(new KeelError(code as never, 'm')).body.error;
  assert.equal(spelt('usage'), 'validation_error');
  assert.equal(spelt('spec_invalid'), 'validation_error');
  assert.equal(spelt('already_resolved'), 'interrupt_already_resolved');
  assert.equal(spelt('head_conflict'), 'version_conflict');
  assert.equal(spelt('internal'), 'internal_error');
});

test('property: whatever the code, the OpenWOP body is registered or vendor-shaped, and protocol codes pass unchanged', () => {
  fc.assert(
    fc.property(fc.stringMatching(/^[a-z][a-z_]{0,30}$/), (code) => {
      const r = openWopReply(errorReply(new ProtocolError(code, 'm')));
      assert.ok(r.body.error in REGISTRY || VENDOR.test(r.body.error), r.body.error);
      if (code in REGISTRY) assert.equal(r.body.error, code);
    }),
  );
});

test('run-state refusals name the run status as OpenWOP spells it (details.runStatus)', () => {
  const r = openWopErrorReply(
    new KeelError(ErrorCode.runState, 'not pausable', { runId: 'r', status: 'waiting_approval' }),
  );
  assert.equal(r.status, 409);
  assert.equal(r.body.error, 'run_state_conflict');
  assert.deepEqual(r.body.details, { runId: 'r', runStatus: 'waiting-approval' });
  const t = openWopErrorReply(new KeelError(ErrorCode.runTerminal, 'finished', { status: 'refused' }));
  assert.deepEqual([t.body.error, t.body.details], ['run_terminal', { runStatus: 'failed' }]);
});
