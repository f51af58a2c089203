/**
 * Placeholders in a text a step sends: "Thanks, invoice <invoice number> is in our queue." The
 * words between the angle brackets name what the run fills in: a payload field of the trigger
 * event (`<amount usd>`, `<vendor>` for `vendor_id`), or the event's own thing by its noun
 * ("<invoice number>", "<invoice id>", "<the ticket>": the event's subject). Each becomes the
 * template (`{{event.payload.amount_usd}}`, `{{event.subject}}`), listed under "Assumed"; one
 * that names nothing the event carries is asked about: sent as typed it would reach a person.
 */
import type { FlowStep } from '../../spec/flow-steps.ts';
import { isToolStep, nestedLists } from '../../spec/flow-steps.ts';
import { lemmas } from '../request-words.ts';
import { DETERMINERS, fieldValue } from './arg-phrase-words.ts';
import { listOr, type RequestContext } from './request-context.ts';

const PLACEHOLDER = /<\s*([a-z][a-z0-9 _'-]{0,40}?)\s*>/gi;

/** Fills the placeholders of the text arguments of `steps` (in place), for the trigger `event`. */
export function fillPlaceholders(
  steps: readonly FlowStep[],
  event: string | undefined,
  ctx: RequestContext,
): void {
  const shape = ctx.events?.find((e) => e.type === event);
  const noun = event?.split('.')[0]?.split(/[_-]/) ?? [];
  const template = (said: string): string | undefined => {
    const words = said
      .toLowerCase()
      .replace(/'s\b/g, '')
      .split(/[\s_-]+/)
      .filter((w) => w !== '');
    // A field named whole, or the event's own noun and a field ("<alert summary>"): as an argument
    // phrase names it (arg-phrase-words.ts).
    const named = shape ? fieldValue(words, [shape]) : undefined;
    if (named !== undefined) return named;
    // A field whose name holds every word said ("<vendor>" for vendor_id), when only one does.
    const content = words.filter((w) => !DETERMINERS.has(w));
    if (content.length === 0) return undefined;
    const hits = (shape?.payload ?? []).filter((p) =>
      content.every((w) => p.split('_').some((part) => lemmas(part).some((l) => lemmas(w).includes(l)))),
    );
    if (hits.length === 1) return `{{event.payload.${hits[0]}}}`;
    // "<invoice number>", "<invoice id>", "<ticket>": the event's own thing.
    const own = content.filter((w) => !/^(?:number|no|id|ref|reference|#)$/.test(w));
    if (
      own.length > 0 &&
      own.every((w) => noun.some((n) => lemmas(n).some((l) => lemmas(w).includes(l)))) &&
      !shape?.payload.some((p) => p === `${own.join('_')}_id`)
    )
      return '{{event.subject}}';
    return undefined;
  };
  const walk = (list: readonly FlowStep[]) => {
    for (const s of list) {
      if (!isToolStep(s)) {
        for (const l of nestedLists(s)) walk(l.steps);
        continue;
      }
      for (const [k, v] of Object.entries(s.args)) {
        if (typeof v !== 'string' || !PLACEHOLDER.test(v)) continue;
        PLACEHOLDER.lastIndex = 0;
        const unknown: string[] = [];
        s.args[k] = v.replace(PLACEHOLDER, (all, said: string) => {
          const t = template(said);
          if (t === undefined) {
            unknown.push(all);
            return all;
          }
          ctx.assumptions.push(`"${all}" in ${s.tool}'s ${k} is read as ${t}.`);
          return t;
        });
        if (unknown.length > 0)
          ctx.questions.push({
            about: `args: ${s.tool}.${k}`,
            question: `${s.tool}'s ${k} holds ${listOr(unknown)}, which names nothing the ${event ?? 'trigger'} event carries. What should it say there?`,
          });
      }
    }
  };
  walk(steps);
}
