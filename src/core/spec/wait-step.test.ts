/**
 * Wait steps in a spec: `wait: { for }` takes a whole number and a unit (s, m, h, d) up to 366d,
 * `wait: { until }` an RFC 3339 instant or a template reading the event or earlier steps (never a
 * source); exactly one of the two; unknown keys refused; each problem named by its field path.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode, isKeelError } from '../errors.ts';
import { compilePlan } from '../run/execution-plan.ts';
import { toolSteps } from './flow-steps.ts';
import type { SpecProblem } from './spec-problem.ts';
import { validateSpec } from './validate-spec.ts';
import { MAX_WAIT_MS, parseDuration } from './wait-step.ts';

function spec(wait: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'access',
    version: 1,
    status: 'DRAFT',
    triggers: [{ event: 'access.requested' }],
    steps: [
      { name: 'grant', tool: 'grant_access', args: {} },
      { name: 'cool_off', wait, ...extra },
      { name: 'revoke', tool: 'revoke_access', args: {} },
    ],
    limits: { maxSteps: 2, maxCostUsd: 0 },
  };
}

function problems(value: unknown): SpecProblem[] {
  try {
    validateSpec(value, 'spec.json');
  } catch (e) {
    assert.ok(isKeelError(e) && e.code === ErrorCode.specInvalid, String(e));
    return e.details.problems as SpecProblem[];
  }
  return [];
}

function one(value: unknown, field: string, message: RegExp): void {
  const p = problems(value);
  assert.equal(p.length, 1, JSON.stringify(p));
  assert.equal(p[0]!.field, field);
  assert.match(p[0]!.message, message);
}

describe('wait steps', () => {
  it('accepts for and until, compiles to a wait node between the tool nodes, and counts no step', () => {
    const s = validateSpec(spec({ for: '15m' }), 'spec.json');
    assert.deepEqual(s.steps[1], { name: 'cool_off', wait: { for: '15m' } });
    assert.deepEqual(
      compilePlan(s).nodes.map((n) => [n.kind, n.id]),
      [
        ['tool', 'grant'],
        ['wait', 'cool_off'],
        ['tool', 'revoke'],
      ],
    );
    assert.deepEqual(
      toolSteps(s).map((x) => x.name),
      ['grant', 'revoke'],
    );
    const u = validateSpec(spec({ until: '{{ steps.grant.output.expiresAt }}' }), 'spec.json');
    assert.deepEqual(u.steps[1], { name: 'cool_off', wait: { until: '{{ steps.grant.output.expiresAt }}' } });
    assert.deepEqual(problems(spec({ until: '2026-03-01T09:00:00Z' })), []);
  });

  it('reads durations exactly, within bounds', () => {
    assert.deepEqual(parseDuration('15m'), { ms: 900_000 });
    assert.deepEqual(parseDuration('48h'), { ms: 172_800_000 });
    assert.deepEqual(parseDuration('366d'), { ms: MAX_WAIT_MS });
    for (const bad of ['367d', '0m', '1.5h', '15', 'm', ' 15m', '15min', '-1s', 15])
      assert.ok('problem' in parseDuration(bad), String(bad));
  });

  it('names each problem by its field', () => {
    one(spec({ for: '15 minutes' }), 'steps[1].wait.for', /expected a duration/);
    one(spec({ for: '400d' }), 'steps[1].wait.for', /longer than the longest wait, 366d/);
    one(spec({ for: '1m', until: '2026-01-01T00:00:00Z' }), 'steps[1].wait', /exactly one of for/);
    one(spec({}), 'steps[1].wait', /exactly one of for/);
    one(spec({ for: '1m', every: '1h' }), 'steps[1].wait.every', /unknown field/);
    one(spec({ for: '1m' }, { tool: 'x' }), 'steps[1].tool', /unknown field/);
    one(spec('15m'), 'steps[1].wait', /expected a mapping/);
    one(spec({ until: '2026-02-30T00:00:00Z' }), 'steps[1].wait.until', /February 2026 has 28 days/);
    one(spec({ until: '{{ steps.revoke.output.at }}' }), 'steps[1].wait.until', /runs later/);
    one(spec({ until: '{{ clock.now }}' }), 'steps[1].wait.until', /is a source/);
    one(spec({ until: 42 }), 'steps[1].wait.until', /expected an RFC 3339 instant or a template/);
  });
});
