import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { cancelReason } from '../run/cancel-reason.ts';
import { ACTOR_FIELDS, hasCode, namesActor } from './entry-actor.ts';
import { ENTRY_KINDS } from './entry-kinds.ts';

test('each actor field names who acted, and nothing nested or of another kind does', () => {
  for (const [kind, field] of Object.entries(ACTOR_FIELDS)) {
    assert.ok((ENTRY_KINDS as readonly string[]).includes(kind), kind);
    assert.equal(namesActor(kind, { [field]: 'dana' }, 'dana'), true, kind);
    assert.equal(namesActor(kind, { [field]: 'danae' }, 'dana'), false, kind);
    assert.equal(namesActor(kind, { [field]: ['dana'] }, 'dana'), false, `${kind}: not a string`);
  }
  assert.equal(namesActor('step.allowed', { by: 'dana' }, 'dana'), false, 'step.allowed names approvedBy');
  assert.equal(namesActor('step.allowed', { args: { approvedBy: 'dana' } }, 'dana'), false, 'nested');
  assert.equal(namesActor('run.started', { event: { source: 'dana', subject: 'dana' } }, 'dana'), false);
  assert.equal(namesActor('step.completed', { output: { by: 'dana' } }, 'dana'), false);
  assert.equal(namesActor('approval.resolved', null, 'dana'), false);
});

test('a cancelled run.finished names who cancelled it, as cancelReason wrote it, and no one else', () => {
  const name = fc.string({ minLength: 1 }).filter((s) => !s.includes(': '));
  fc.assert(
    fc.property(name, name, fc.option(fc.string({ minLength: 1 })), (by, other, why) => {
      const reason = cancelReason(why === null ? { by } : { by, reason: why });
      const entry = { status: 'cancelled', outputs: {}, reason };
      assert.equal(namesActor('run.finished', entry, by), true);
      if (other !== by && !by.startsWith(`${other}: `))
        assert.equal(namesActor('run.finished', entry, other), false);
      assert.equal(namesActor('run.finished', { ...entry, status: 'refused' }, by), false);
    }),
  );
  // A longer or shorter name is another actor.
  const reason = 'cancelled by dana: duplicate';
  assert.equal(namesActor('run.finished', { status: 'cancelled', reason }, 'dan'), false);
  assert.equal(
    namesActor('run.finished', { status: 'cancelled', reason: 'cancelled by danae' }, 'dana'),
    false,
  );
});

test('codes are those of step.refused and run.finished', () => {
  assert.equal(hasCode('step.refused', { code: 'policy_denied' }, 'policy_denied'), true);
  assert.equal(hasCode('run.finished', { code: 'needs_simulation' }, 'needs_simulation'), true);
  assert.equal(hasCode('step.failed', { error: { code: 'boom' }, code: 'boom' }, 'boom'), false);
  assert.equal(hasCode('step.refused', { writ: { code: 'writ_expired' } }, 'writ_expired'), false);
});
