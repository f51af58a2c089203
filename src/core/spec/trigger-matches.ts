/**
 * Does a trigger start a run for this event? Type equality, then the `when` condition, if any.
 *
 * Parsed conditions are memoised by source text (pure: same text, same AST). A trigger from a
 * validated spec always parses; an unvalidated one with bad syntax throws `spec_invalid`.
 */

import { evaluateCondition } from './evaluate-condition.ts';
import type { EventLike } from './event-like.ts';
import { type Condition, parseCondition } from './parse-condition.ts';
import { scheduleTakes } from './schedule-trigger.ts';
import type { TriggerSpec } from './workflow-spec.ts';

const CACHE_LIMIT = 1024;
const parsed = new Map<string, Condition>();

function conditionOf(src: string): Condition {
  let c = parsed.get(src);
  if (!c) {
    c = parseCondition(src);
    if (parsed.size >= CACHE_LIMIT) parsed.clear();
    parsed.set(src, c);
  }
  return c;
}

/**
 * `workflowId` is the trigger's own workflow: a schedule trigger takes only that workflow's fires
 * (and nothing when it is not given).
 */
export function triggerMatches(t: TriggerSpec, event: EventLike, workflowId?: string): boolean {
  if (t.schedule) return scheduleTakes(workflowId, event);
  if (t.event !== event.type) return false;
  return t.when === undefined ? true : evaluateCondition(conditionOf(t.when), event);
}
