/**
 * Two bounds the trigger puts on one field the same way ("reported 3 or more times ... once it's
 * had 10+ reports": `report_count >= 3 and report_count >= 10`): the one makes the other say
 * nothing, so one was likely said of some steps only. Asked, never left to the stricter one, which
 * would hold back every step. Pure.
 */
import { comparisonsOf, payloadField } from '../test-comparisons.ts';
import type { RequestContext } from './request-context.ts';

export function askRepeatedBounds(
  when: readonly string[],
  event: string | undefined,
  ctx: RequestContext,
): void {
  const tests = comparisonsOf(when.join(' and '));
  // (Tests joined by "or" are alternatives, each its own bound.)
  if (tests.some((t) => t.underOr)) return;
  const seen = new Map<string, string>();
  for (const t of tests) {
    const field = payloadField(t);
    if (field === undefined || !t.stated || typeof t.value !== 'number' || t.op === '==' || t.op === '!=')
      continue;
    const bound = `${field} ${t.op} ${t.value}`;
    const key = `${field} ${t.op.startsWith('>') ? 'above' : 'below'}`;
    const earlier = seen.get(key);
    if (earlier === undefined) {
      seen.set(key, bound);
      continue;
    }
    ctx.questions.push({
      about: 'triggers.when',
      question: `The trigger tests the ${event ?? 'trigger'} event's ${earlier} and ${bound}: the one makes the other say nothing. Is one of them said of some steps only? Say which steps it holds back ("..., and if it has 10 or more, also ...").`,
    });
    return;
  }
}
