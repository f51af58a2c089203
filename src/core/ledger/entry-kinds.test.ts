import assert from 'node:assert/strict';
import { test } from 'node:test';
import { APPROVAL_SHAPES } from './approval-entries.ts';
import { BRANCH_SHAPES } from './branch-entries.ts';
import { ENTRY_KINDS } from './entry-kinds.ts';
import { LOOP_SHAPES } from './loop-entries.ts';
import { RUN_SHAPES } from './run-entries.ts';
import { SOURCE_SHAPES } from './source-entries.ts';
import { STEP_SHAPES } from './step-entries.ts';
import { WAIT_SHAPES } from './wait-entries.ts';

test('the entry kinds keep their order: every edge lists them in it (filters, OpenAPI, counts)', () => {
  assert.deepEqual(ENTRY_KINDS, [
    'run.started',
    'source.drawn',
    'step.allowed',
    'step.refused',
    'approval.requested',
    'approval.resolved',
    'step.completed',
    'step.failed',
    'step.suppressed',
    'approval.simulated',
    'run.finished',
    'run.suspended',
    'step.reconciled',
    'run.paused',
    'run.resumed',
    'step.skipped',
    'branch.chosen',
    'wait.started',
    'wait.ended',
    'parallel.joined',
    'approval.reminded',
    'approval.escalated',
    'approval.expired',
    'foreach.started',
  ]);
});

test('every entry kind is of exactly one family, and every family kind is an entry kind', () => {
  const families = [
    RUN_SHAPES,
    SOURCE_SHAPES,
    STEP_SHAPES,
    APPROVAL_SHAPES,
    BRANCH_SHAPES,
    WAIT_SHAPES,
    LOOP_SHAPES,
  ].flatMap((f) => Object.keys(f));
  assert.deepEqual([...families].sort(), [...ENTRY_KINDS].sort());
  for (const [name, f] of Object.entries({
    RUN_SHAPES,
    SOURCE_SHAPES,
    STEP_SHAPES,
    APPROVAL_SHAPES,
    BRANCH_SHAPES,
    WAIT_SHAPES,
    LOOP_SHAPES,
  }))
    for (const [kind, shape] of Object.entries(f))
      assert.ok(Object.keys(shape).length > 0, `${name}.${kind} has fields`);
});
