/**
 * A value of the trigger event's fields said in the words and read by nothing ("open a sev3 for
 * warnings", "for warnings or checkout open a sev3"): it says which events, and a draft without it
 * would act on every event. In any draft (the coverage check, read-coverage.ts, reads every word
 * only when money moves, a destructive tool runs or a reading is assumed), a question, never
 * dropped. A value is one the event's samples show or a tool's enum lists for an argument named
 * like the field; it is read when the draft's tests or arguments hold it, or an argument took the
 * word. An action's own verb ("email them", with an `email` channel) is no such value. Pure.
 */
import type { FlowStep } from '../../spec/flow-steps.ts';
import type { EventShape } from '../compiled-request.ts';
import { isActionVerb, lemmas } from '../request-words.ts';
import { fieldForValue, isEventNoun } from './read-field-tests.ts';
import { type DraftStep, listOr, probing, type RequestContext } from './request-context.ts';

/** The values the event's samples show, or a tool's enum lists for an argument named like the field. */
function valuesOf(field: string, shape: EventShape, ctx: RequestContext): Set<string> {
  const out = new Set((shape.values?.[field] ?? []).map((v) => v.toLowerCase()));
  for (const t of ctx.tools) {
    const prop = (t.args.properties as Record<string, { enum?: unknown }> | undefined)?.[field];
    if (Array.isArray(prop?.enum))
      for (const v of prop.enum) if (typeof v === 'string') out.add(v.toLowerCase());
  }
  return out;
}

export function askUnreadValues(
  left: string,
  event: string | undefined,
  when: readonly string[],
  flow: readonly FlowStep[],
  steps: readonly DraftStep[],
  ctx: RequestContext,
): void {
  const shape = ctx.events?.find((e) => e.type === event);
  if (!shape) return;
  const drafted = `${when.join(' ')} ${JSON.stringify(flow)}`.toLowerCase();
  const taken = new Set(
    steps.flatMap((s) =>
      Object.values(s.step.args).flatMap((v) =>
        typeof v === 'string' && !v.includes('{{') ? v.toLowerCase().split(/[^a-z0-9-]+/) : [],
      ),
    ),
  );
  const unread: string[] = [];
  const scratch = probing(ctx);
  for (const word of new Set(left.replace(/"q[0-9]+"/g, ' ').match(/[a-z][a-z0-9-]+/g) ?? [])) {
    if (isActionVerb(word) || isEventNoun(word, shape) || taken.has(word)) continue;
    const hit = fieldForValue(word, shape, scratch);
    if (!hit || !valuesOf(hit.field, shape, ctx).has(hit.value.toLowerCase())) continue;
    if (drafted.includes(`"${hit.value.toLowerCase()}"`) || lemmas(word).some((l) => taken.has(l))) continue;
    unread.push(`"${word}" (${hit.field} ${hit.value})`);
  }
  if (unread.length === 0) return;
  ctx.questions.push({
    about: 'triggers.when',
    question: `I could not read ${listOr(unread)} in the request: no test or step of the draft says it, and without it the workflow would run for every ${shape.type} event. Should it run only for those? Say it as a test ("only for ...").`,
  });
}
