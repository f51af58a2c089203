/**
 * The walker of a loop node (a `forEach:` step, core/spec/foreach-step.ts): a bounded iteration.
 *
 * Reaching it, the walk resolves the loop's `items` template against the run's own values (its
 * event and the outputs recorded so far, nothing drawn) and records `foreach.started` with the
 * list as resolved and its count; the plan then holds the body's steps once per item
 * (`refund_lines[0].refund`, …), each walked as any tool step — resolved with the item, checked
 * (schema, writ, policy, spend cap, step limit), recorded, with its own idempotency key. A list
 * longer than the loop's `max`, or no list at all, finishes the run failed before any of the
 * loop's calls, naming the step and the count. A replay resolves the same list from the same
 * record, so it writes the same entry byte for byte. Nothing here calls a tool.
 */
import type { ForEachNode } from '../core/run/index.ts';
import { describeValue, resolveArgs } from '../core/spec/index.ts';
import type { Flow, Walk } from './walk-context.ts';

export async function walkForEach(walk: Walk, node: ForEachNode): Promise<Flow> {
  const { w } = walk;
  const s = w.state;
  const name = node.step.name;
  const { items, max } = node.step.forEach;
  const r = resolveArgs(
    { items },
    // Validation refuses sources in `items`; a spec that slipped past it draws nothing here.
    { event: s.event, steps: s.stepScope, draw: () => undefined },
  );
  const list = r.ok ? r.value.items : undefined;
  const failed = (why: string): Flow => {
    w.add('run.finished', { status: 'failed', outputs: s.outputs, reason: `step ${name}: ${why}` });
    return 'stop';
  };
  if (!r.ok) return failed(`forEach.items: ${r.problems.map((p) => p.message).join('; ')}`);
  if (!Array.isArray(list))
    return failed(
      `forEach.items: expected a list, got ${list === undefined ? 'nothing' : describeValue(list)}; nothing of the loop ran`,
    );
  if (list.length > max)
    return failed(
      `forEach.items holds ${list.length} items, more than its max of ${max}; nothing of the loop ran`,
    );
  w.add('foreach.started', { step: name, count: list.length, items: list });
  return 'next';
}
