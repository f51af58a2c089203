/**
 * Two bounds the trigger puts on one field the same way ("reported 3 or more times ... once it's
 * had 10+ reports": `report_count >= 3 and report_count >= 10`): the one makes the other say
 * nothing, so one was likely said of some steps only. Asked, never left to the stricter one, which
 * would hold back every step. Pure.
 */
import type { RequestContext } from './request-context.ts';

const BOUND = /\bpayload\.([a-z0-9_]+)\s*(>=|>|<=|<)\s*(-?[0-9]+(?:\.[0-9]+)?)\b/g;

export function askRepeatedBounds(
  when: readonly string[],
  event: string | undefined,
  ctx: RequestContext,
): void {
  // (Tests joined by "or" are alternatives, each its own bound.)
  if (when.some((w) => /\bor\b/.test(w))) return;
  const seen = new Map<string, string>();
  for (const m of when.join(' and ').matchAll(BOUND)) {
    const key = `${m[1]} ${m[2]!.startsWith('>') ? 'above' : 'below'}`;
    const earlier = seen.get(key);
    if (earlier === undefined) {
      seen.set(key, `${m[1]} ${m[2]} ${m[3]}`);
      continue;
    }
    ctx.questions.push({
      about: 'triggers.when',
      question: `The trigger tests the ${event ?? 'trigger'} event's ${earlier} and ${m[1]} ${m[2]} ${m[3]}: the one makes the other say nothing. Is one of them said of some steps only? Say which steps it holds back ("..., and if it has 10 or more, also ...").`,
    });
    return;
  }
}
