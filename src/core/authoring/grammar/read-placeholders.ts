/**
 * Placeholders in a text a step sends: "Thanks, invoice <invoice number> is in our queue." (or
 * `{invoice number}`). The words between the brackets name what the run fills in: a payload field of the trigger
 * event (`<amount usd>`, `<vendor>` for `vendor_id`), or the event's own thing by its noun
 * ("<invoice number>", "<invoice id>", "<the ticket>": the event's subject). Each becomes the
 * template (`{{event.payload.amount_usd}}`, `{{event.subject}}`), listed under "Assumed". Else
 * what an earlier step returns, named the same way ("<name>" after a lookup returning
 * `customer_name`: `{{steps.lookup.output.customer_name}}`; what it returns is its declared result,
 * or what its description lists, as `outputsOf` reads it), or, for money ("<amount>", "<refund>"),
 * the amount an earlier step of the draft moved (`refund whatever's due ... 'a refund of
 * $<amount>'`: what its money argument took). One that names none of these is asked about: sent as
 * typed it would reach a person.
 */
import type { FlowStep, StepSpec } from '../../spec/flow-steps.ts';
import { isToolStep, nestedLists } from '../../spec/flow-steps.ts';
import { lemmas } from '../request-words.ts';
import { DETERMINERS, fieldValue } from './arg-phrase-words.ts';
import { outputsOf } from './implied-reads.ts';
import { listOr, type RequestContext } from './request-context.ts';

/** `<name>` or `{name}` (never `{{...}}`, a template of its own; "[warn]" is a text's own). */
const PLACEHOLDER = /<\s*([a-z][a-z0-9 _'-]{0,40}?)\s*>|(?<!\{)\{\s*([a-z][a-z0-9 _'-]{0,40}?)\s*\}(?!\})/gi;
/** Words a placeholder names an amount of money with. */
const MONEY = /^(?:amount|amt|total|refund|credit|sum|price|cost|due)$/;

/** The parts of `text` between its placeholders ("Thanks, invoice <n> is in": "Thanks, invoice ", " is in"). */
export const textAround = (text: string): string[] => text.replace(PLACEHOLDER, '\u0000').split('\u0000');

/** "Use code {SAVE10}": capitals in braces that name nothing are the text's own. */
const literal = (braced: string | undefined) => braced !== undefined && /[A-Z]/.test(braced);

/** Fills the placeholders of the text arguments of `steps` (in place), for the trigger `event`. */
export function fillPlaceholders(
  steps: readonly FlowStep[],
  event: string | undefined,
  ctx: RequestContext,
): void {
  const shape = ctx.events?.find((e) => e.type === event);
  const noun = event?.split('.')[0]?.split(/[_-]/) ?? [];
  // A name whose parts hold every word said ("<vendor>" for vendor_id, "<name>" for customer_name).
  const holdsEvery = (name: string, content: readonly string[]) =>
    content.every((w) => name.split('_').some((part) => lemmas(part).some((l) => lemmas(w).includes(l))));
  const template = (words: readonly string[], content: readonly string[]): string | undefined => {
    // A field named whole, or the event's own noun and a field ("<alert summary>"): as an argument
    // phrase names it (arg-phrase-words.ts).
    const named = shape ? fieldValue(words, [shape]) : undefined;
    if (named !== undefined) return named;
    // A field whose name holds every word said, when only one does.
    if (content.length === 0) return undefined;
    // "<invoice number>", "<invoice id>", "<ticket>", "<claim>": the event's own thing, before a
    // field that only holds its noun ("<claim>" is no claim_type).
    const own = content.filter((w) => !/^(?:number|no|id|ref|reference|#)$/.test(w));
    const ownThing =
      own.length > 0 &&
      own.every((w) => noun.some((n) => lemmas(n).some((l) => lemmas(w).includes(l)))) &&
      !shape?.payload.some((p) =>
        [`${own.join('_')}_id`, `${own.join('_')}_number`, own.join('_')].includes(p),
      );
    if (ownThing && own.length === content.length) return '{{event.subject}}';
    // ("<report>" on room.damage_reported: who reported it, `reported_by`, is no report; the report
    // is the event's own thing, named by its verb.)
    const hits = (shape?.payload ?? []).filter((p) => holdsEvery(p, content) && !p.endsWith('_by'));
    if (hits.length === 1) return `{{event.payload.${hits[0]}}}`;
    const reported = hits.length === 0 && own.length === 1 && holdsEvery(event?.split('.')[1] ?? '', own);
    return ownThing || reported ? '{{event.subject}}' : undefined;
  };
  /** What an earlier step returns or moved, for the words of a placeholder (see above). */
  const earlier = (content: readonly string[], before: readonly StepSpec[]): string | undefined => {
    if (content.length === 0) return undefined;
    const outputs = before.flatMap((s) => {
      const tool = ctx.tools.find((t) => t.name === s.tool);
      return (tool ? outputsOf(tool).fields.map((f) => f.name) : [])
        .filter((p) => holdsEvery(p, content))
        .map((p) => `{{steps.${s.name}.output.${p}}}`);
    });
    if (outputs.length === 1) return outputs[0];
    if (outputs.length > 1 || !content.every((w) => MONEY.test(w))) return undefined;
    const moved = new Set(
      before.flatMap((s) => {
        const arg = ctx.tools.find((t) => t.name === s.tool)?.cost?.fromArg;
        const v = arg === undefined ? undefined : s.args[arg];
        return typeof v === 'string' && /^\{\{[^}]+\}\}$/.test(v) ? [v] : [];
      }),
    );
    return moved.size === 1 ? [...moved][0] : undefined;
  };
  const walk = (list: readonly FlowStep[], before: readonly StepSpec[]) => {
    const seen = [...before];
    for (const s of list) {
      if (!isToolStep(s)) {
        for (const l of nestedLists(s)) walk(l.steps, seen);
        continue;
      }
      for (const [k, v] of Object.entries(s.args)) {
        if (typeof v !== 'string' || !PLACEHOLDER.test(v)) continue;
        PLACEHOLDER.lastIndex = 0;
        const unknown: string[] = [];
        s.args[k] = v.replace(PLACEHOLDER, (all, angled?: string, braced?: string) => {
          const words = (angled ?? braced)!
            .toLowerCase()
            .replace(/'s\b/g, '')
            .split(/[\s_-]+/)
            .filter((w) => w !== '');
          const content = words.filter((w) => !DETERMINERS.has(w));
          const t = template(words, content) ?? earlier(content, seen);
          if (t === undefined && literal(braced)) return all;
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
      seen.push(s);
    }
  };
  walk(steps, []);
}
