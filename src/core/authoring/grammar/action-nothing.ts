/**
 * "pay nothing to new sellers; otherwise send the payout", "otherwise reimburse nothing": an action
 * said with "nothing" is one not to do, for some events. Read as the action, it had drafted the
 * payment for exactly the events it was forbidden for; read as a ban, the branch it forbids is
 * still asked for. So it is asked about, never drafted ("do nothing" stays the empty branch the
 * else readers make). Pure but for the question.
 */
import { GENERIC_VERBS, isActionVerb } from '../request-words.ts';
import type { RequestContext } from './request-context.ts';

export function askActionNothing(lower: string, ctx: RequestContext): void {
  for (const m of lower.matchAll(/\b([a-z]+) nothing\b/g)) {
    const verb = m[1]!;
    if (!isActionVerb(verb) || GENERIC_VERBS.has(verb)) continue;
    ctx.questions.push({
      about: 'steps',
      question: `"${m[0]}" says an action not to do. A draft cannot say that as a step: should the workflow leave ${verb} out for those events (say them as a test, "if ..., do nothing; otherwise ..."), or never ${verb} at all?`,
    });
    return;
  }
}
