/**
 * The walker of a wait node (a `wait:` step, core/spec/wait-step.ts): a durable timer.
 *
 * Reaching it, the walk reads the clock (the time its writer stamps the next entry with: live, the
 * real clock; replaying, the record), computes when the wait fires — that time plus `for`, or
 * `until` resolved against the event and earlier outputs — and records `wait.started`. Walked
 * again (at once, or when the store hands the run back), it reads the clock again: at or after
 * the fire time it records `wait.ended` and the walk goes on; before it, the walk stops without
 * writing anything, and the append that started the wait (or nothing, if it was written before)
 * sets the run's wake time with its lease change in the same transaction (`LeaseChange` `wait`): the run
 * is `waiting`, holds no process, and a worker claims it when it is due.
 *
 * A simulated run (a test, a shadow) never sleeps: its virtual clock jumps to the fire time
 * (core/run/virtual-clock.ts), recorded like any time, so its replay reads alike. An `until` that
 * is no RFC 3339 instant ends the run failed, naming the step. Nothing here calls a tool.
 */
import { instantMessage, parseInstant } from '../core/instant.ts';
import type { PayloadOf } from '../core/ledger/index.ts';
import type { WaitNode } from '../core/run/index.ts';
import { isEventWait, parseDuration, resolveArgs } from '../core/spec/index.ts';
import { walkEventWait } from './event-wait-step.ts';
import type { Flow, Walk } from './walk-context.ts';

export async function walkWaitStep(walk: Walk, node: WaitNode): Promise<Flow> {
  if (isEventWait(node.step.wait)) return walkEventWait(walk, node, node.step.wait);
  const { w } = walk;
  const s = w.state;
  const name = node.step.name;
  const open = s.wait;
  if (!open || open.step !== name) {
    const started = startOf(walk, node);
    if ('failed' in started) {
      w.add('run.finished', { status: 'failed', outputs: s.outputs, reason: started.failed });
      return 'stop';
    }
    w.add('wait.started', started);
    return 'next';
  }
  const at = walk.simulated ? w.advanceTo(open.fireAt!) : w.nextAt();
  if (Date.parse(at) >= open.fireAtMs) {
    w.add('wait.ended', { step: name, reason: 'timer', at });
    return 'next';
  }
  // Not due: the run waits, holding nothing; the store wakes it at the fire time.
  w.leaseWith({ op: 'wait', wakeAt: open.fireAtMs });
  return 'stop';
}

/** The `wait.started` of the node, its fire time computed from the clock read now; or why the run fails. */
function startOf(walk: Walk, node: WaitNode): PayloadOf<'wait.started'> | { failed: string } {
  const { w } = walk;
  const s = w.state;
  const name = node.step.name;
  const wait = node.step.wait;
  if (isEventWait(wait)) return { failed: `step ${name}: not a timer` };
  const now = Date.parse(w.nextAt());
  if ('for' in wait) {
    const d = parseDuration(wait.for);
    if ('problem' in d) return { failed: `step ${name}: wait.for: ${d.problem}` };
    return { step: name, kind: 'timer', fireAt: new Date(now + d.ms).toISOString(), for: wait.for };
  }
  const r = resolveArgs(
    { until: wait.until },
    {
      event: s.event,
      steps: s.stepScope,
      // Validation refuses sources in `until`; a spec that slipped past it draws nothing here.
      draw: () => undefined,
    },
  );
  if (!r.ok) return { failed: `step ${name}: wait.until: ${r.problems.map((p) => p.message).join('; ')}` };
  const until = r.value.until;
  const ms = typeof until === 'string' ? parseInstant(until) : undefined;
  if (typeof until !== 'string' || ms === undefined) {
    const why =
      typeof until === 'string'
        ? instantMessage('wait.until', until)
        : `wait.until: expected an RFC 3339 instant, got ${until === undefined ? 'nothing' : JSON.stringify(until)}`;
    return { failed: `step ${name}: ${why}` };
  }
  return { step: name, kind: 'timer', fireAt: new Date(ms).toISOString(), until };
}
