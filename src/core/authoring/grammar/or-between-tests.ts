/**
 * Two tests the trigger requires both of, whose values the words join with "or" ("travel or USD
 * expenses", "urgent/enterprise", "urgent, pro or free", "over $100 or the reason is
 * fraud"): the draft would act on fewer events than asked. The readers that take "or" as either
 * (read-field-tests.ts, alternative-tests.ts) leave no such pair; any other is asked, never left to
 * "and". Tests both turned around ("unless A or B": neither) are no question. Pure.
 */
import type { EventShape } from '../compiled-request.ts';
import { type Comparison, comparisonsOf, payloadField } from '../test-comparisons.ts';
import { enumValues } from './listed-values.ts';
import { asLiteral, listOr, type RequestContext } from './request-context.ts';

interface Test {
  /** Which of the conjuncts joined by "and" it is of (the tests of "(a or b)" share one). */
  readonly group: number;
  readonly field: string;
  readonly op: string;
  readonly value: string;
  /** How the value may be said: its words, a number's digits, a yes/no field's own words. */
  readonly said: RegExp;
}

/** A test of a payload field the trigger makes (none under a "not"), and how its value may be said. */
function testOf(c: Comparison): Test | undefined {
  const field = payloadField(c);
  if (field === undefined || c.underNot) return undefined;
  const value = String(c.value).toLowerCase();
  const words =
    value === 'true' || value === 'false'
      ? field.split('_').filter((w) => w.length > 3)
      : [asLiteral(value).replace(/[_ -]/g, '[ _-]?')];
  if (words.length === 0) return undefined;
  return {
    group: c.conjunct,
    field,
    op: c.op,
    value,
    said: new RegExp(String.raw`\b(?:${words.join('|')})\b`, 'g'),
  };
}

export function askOrBetweenTests(text: string, when: readonly string[], ctx: RequestContext): void {
  // ("plan == free and (priority == urgent or plan == pro)" of "urgent or pro or free": each test of
  // the alternatives against the test required beside them.)
  const tests = comparisonsOf(when.join(' and '))
    .map(testOf)
    .filter((t): t is Test => t !== undefined);
  for (const [i, a] of tests.entries())
    for (const b of tests.slice(i + 1)) {
      if (a.group === b.group) continue;
      // ("if the plan is enterprise or the priority is urgent -> ...; if the plan is free -> ...":
      // two cases folded into one trigger that also requires the other's value.)
      if (a.field === b.field && a.op === '==' && b.op === '==' && a.value !== b.value) {
        ctx.questions.push({
          about: 'triggers.when',
          question: `The trigger tests ${a.field} == "${a.value}" and ${a.field} == "${b.value}" together, and an event has one ${a.field}. Are these cases of their own ("if the ${a.field.replace(/_/g, ' ')} is ${b.value}, ..." said apart)?`,
        });
        return;
      }
      if (a.op === '!=' && b.op === '!=') continue;
      for (const x of text.matchAll(a.said))
        for (const y of text.matchAll(b.said)) {
          const [from, to] = x.index < y.index ? [x, y] : [y, x];
          const between = text.slice(from.index + from[0].length, to.index);
          // ("urgent, pro or free": a list whose last link is "or" is joined by "or" throughout.)
          const listed =
            /^\s*,\s*$/.test(between) &&
            /^\s*(?:,\s*[a-z0-9-]+\s*)*,?\s*or\s/.test(text.slice(to.index + to[0].length));
          if (between.length > 60 || !(listed || /(?:^|\s)or(?:\s|$)|^\s*\/\s*$/.test(between))) continue;
          if (/\b(?:and|but|then|also|plus)\b|[.;:!?]|"q[0-9]+"/.test(between)) continue;
          // (Only tests said next to each other: "harassment or spam w/ 3+" joins the categories.)
          if (tests.some((t) => new RegExp(t.said.source).test(between))) continue;
          ctx.questions.push({
            about: 'triggers.when',
            question: `"${text.slice(from.index, to.index + to[0].length).trim()}": the trigger needs both ${a.field} and ${b.field} to match. Should either one be enough ("... or ...", each said in full: "if the priority is urgent or the plan is pro")?`,
          });
          return;
        }
    }
}

/**
 * Values the words join with "or" that the draft tests only in part: "hide spam or misinformation
 * posts" testing misinformation alone (spam taken for the reason), "if the amount is over $100 or
 * the reason is fraud" testing the amount alone. Each value of an event's field said after "or"
 * (or beside one that is tested) must be tested too; else asked, never dropped. Pure.
 */
export function askOrValuesDropped(
  text: string,
  shape: EventShape | undefined,
  drafted: string,
  ctx: RequestContext,
): void {
  if (!shape) return;
  const flat = drafted.replace(/\\"/g, '"').toLowerCase();
  const tested = (v: string) => new RegExp(`[=!]= "${asLiteral(v.toLowerCase())}"`).test(flat);
  const spelled = (v: string) => asLiteral(v.toLowerCase()).replace(/[_ -]/g, '[ _-]');
  for (const field of shape.payload) {
    const values = [...new Set([...(shape.values?.[field] ?? []), ...enumValues(field, shape, ctx)])];
    const alt = values.map(spelled).join('|');
    const name = field
      .split('_')
      .filter((w) => w.length > 2)
      .join('|');
    const pairs = alt
      ? [...text.matchAll(new RegExp(String.raw`\b(${alt})\s*(?:,?\s*or|/)\s*(${alt})\b`, 'g'))].map((m) => ({
          m,
          vs: [m[1]!, m[2]!].map((v) => values.find((x) => new RegExp(`^${spelled(x)}$`).test(v))!),
        }))
      : [];
    // "... or the reason is fraud": a value said of the field by its name, known or not.
    const named = name
      ? [
          ...text.matchAll(
            new RegExp(
              String.raw`\bor\s+(?:if\s+|when\s+)?(?:the\s+|its\s+|their\s+)?(?:[a-z]+\s+)?(?:${name})\s+(?:is|are|was|=)\s+(?:not\s+)?([a-z0-9][a-z0-9_-]*)\b`,
              'g',
            ),
          ),
        ].map((m) => ({ m, vs: [values.find((x) => new RegExp(`^${spelled(x)}$`).test(m[1]!)) ?? m[1]!] }))
      : [];
    for (const { m, vs } of [...pairs, ...named]) {
      const missing = vs.filter((v) => !tested(v));
      // (Neither of a pair tested: the values are what an action says, "mark it spam or abuse".)
      if (missing.length === 0 || (vs.length === 2 && missing.length === 2)) continue;
      ctx.questions.push({
        about: 'triggers.when',
        question: `"${m[0].trim()}" names ${field} ${listOr(vs.map((v) => `"${v}"`))}, but the draft tests ${missing.map((v) => `"${v}"`).join(' and ')} nowhere: those events would be left out. Which events is it for?`,
      });
      return;
    }
  }
}
