/**
 * Waits for events in a spec: `wait: { event, match, timeout, lookback }` checked strictly, every
 * problem named by its field path — the type, the match (parsed; event.* the arriving event,
 * run.event.* the run's own, earlier steps sure to have run; a bare path refused as ambiguous),
 * durations, unknown keys, and no mixing with for/until; the wait has an output later steps read.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode, isKeelError } from '../errors.ts';
import type { SpecProblem } from './spec-problem.ts';
import { validateSpec } from './validate-spec.ts';

function spec(wait: unknown, after: Record<string, unknown> = { name: 'close', tool: 'close', args: {} }) {
  return {
    id: 'desk',
    version: 1,
    status: 'DRAFT',
    triggers: [{ event: 'ticket.opened' }],
    steps: [{ name: 'open', tool: 'open', args: {} }, { name: 'await_reply', wait }, after],
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

const W = 'steps[1].wait';

describe('waits for events', () => {
  it('accepts the full shape, and later steps read its output in if: and templates', () => {
    const wait = {
      event: 'customer.replied',
      match: 'event.subject == run.event.subject and event.payload.ok == true',
      timeout: '48h',
      lookback: '1h',
    };
    const s = validateSpec(
      spec(wait, {
        name: 'close',
        tool: 'close',
        args: { text: '{{ steps.await_reply.output.event.payload.text }}' },
        if: 'steps.await_reply.output.timedOut == false',
      }),
      'spec.json',
    );
    assert.deepEqual(s.steps[1], { name: 'await_reply', wait });
    assert.deepEqual(
      problems(spec({ event: 'customer.replied' })),
      [],
      'match, timeout, lookback are optional',
    );
  });

  it('refuses every bad shape by its field path', () => {
    one(spec({ event: 'bad type' }), `${W}.event`, /expected an event type/);
    one(spec({ event: 'x', match: 'subject == "a"' }), `${W}.match`, /unknown path "subject"/);
    one(spec({ event: 'x', match: 'run.subject == "a"' }), `${W}.match`, /run\.event\.<field>/);
    one(spec({ event: 'x', match: 'event.nope == "a"' }), `${W}.match`, /unknown field "nope"/);
    one(spec({ event: 'x', match: 'event.subject ==' }), `${W}.match`, /invalid condition/);
    one(
      spec({ event: 'x', match: 'steps.close.output.x == 1' }),
      `${W}.match`,
      /reads steps\.close: .*runs later/,
    );
    one(spec({ event: 'x', timeout: '2 days' }), `${W}.timeout`, /expected a duration/);
    one(spec({ event: 'x', lookback: '400d' }), `${W}.lookback`, /longest wait/);
    one(spec({ event: 'x', for: '1h' }), `${W}.for`, /not both/);
    one(spec({ event: 'x', within: '1h' }), `${W}.within`, /unknown field/);
    one(spec({ for: '1h', match: 'event.subject == "a"' }), `${W}.match`, /wait for an event/);
  });

  it('a timer still has no output to read', () => {
    const p = problems(
      spec(
        { for: '1h' },
        { name: 'close', tool: 'close', args: { x: '{{ steps.await_reply.output.timedOut }}' } },
      ),
    );
    assert.equal(p.length, 1);
    assert.match(p[0]!.message, /is a timer .* and has no output/);
  });
});
