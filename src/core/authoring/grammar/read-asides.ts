/**
 * Qualifiers said beside the event rather than in its clause: in parentheses after a heading
 * ("opened tickets (not chat ones) - reply ...", "refund requests (gold customers only): ...") and
 * as a customer group turned around ("urgent tickets, unless they're from free accounts: ...",
 * "except ones from trial accounts", "but not from free customers"). Read before the customer
 * groups (read-conditions.ts readAudience), which would read "from free accounts" as the group a
 * run is for, the opposite; turned into tests once the trigger event is known: a group as its tier
 * field (`payload.plan != "free"`), a word as the field that holds it (read-field-tests.ts
 * fieldForValue: `payload.channel != "chat"`). A word no field holds is a question, never dropped.
 */

import { lemmas } from '../request-words.ts';
import { flagWordTest } from './flag-fields.ts';
import { audienceCondition } from './read-conditions.ts';
import { fieldForValue } from './read-field-tests.ts';
import { cutOut, type RequestContext, type RequestText, sampleValues } from './request-context.ts';
import { isEventWord } from './trigger-words.ts';

/** A qualifier said beside the event. */
export interface Aside {
  readonly word: string;
  /** "not chat ones", "unless they're from free accounts": the test is that it is not so. */
  readonly negated: boolean;
  /** Said of people ("free accounts", "gold customers"): a customer group. */
  readonly group: boolean;
  /** The words as written, for the read-back and the question. */
  readonly said: string;
  /** Where a sentence that leaves events out is said, and how long it is (readIgnored's). */
  readonly span?: { readonly at: number; readonly length: number };
}

const PEOPLE = '(?:accounts?|customers?|users?|clients?|members?|subscribers?|plans?|tiers?)';
const NEGATION = /^(?:not|except|excluding|but not|no|never)$/;

const PARENS = new RegExp(
  String.raw`\(\s*(not|except(?: for)?|excluding|but not|no|only|just)?\s*(?:the\s+|for\s+|from\s+|via\s+|on\s+|by\s+)?([a-z0-9][a-z0-9-]*)(?:\s+(ones?|${PEOPLE}))?(?:\s+only)?\s*\)`,
  'g',
);
const UNLESS_FROM = new RegExp(
  String.raw`,?\s*\b(?:unless (?:they're|theyre|they are|it's|its|it is|they come|it comes)|except(?: for)?(?: those| ones| the ones)?|but not|(?:that|which) (?:aren't|arent|are not|isn't|isnt|is not)|not) (?:from|on|by|for) (?:a |an |the )?([a-z0-9][a-z0-9-]*) (${PEOPLE})\b`,
  'g',
);

/**
 * A request that starts by leaving some events out ("skip alcohol.", "ignore anything from
 * search.", "ignore warnings."), and the words after it that name the rest ("everything else under
 * 150 ->", "for the rest:"): the rest is every event the workflow starts for, no other case. Only
 * as the request's first sentence (after a test, "skip home. everything else: ..." may be an
 * else's case), and only of a value the sample events show ("skip the payment.", "skip it." leave
 * no events out: asked).
 */
const IGNORED =
  /^\s*(?:just\s+)?(?:ignore|skip|exclude|leave out|don'?t touch|dont touch|never touch)\s+(?:(?:anything|everything|all|any|those|the)\s+)?(?:(?:from|on|in|for|by|filed under|under)\s+)?(?:the\s+)?([a-z0-9][a-z0-9-]*)(?:\s+([a-z]+))?\s*[.;!?](?:\s*(?:for\s+)?(?:(?:everything|anything|all)\s+else|the\s+rest|all\s+others?)\s*(?:[:,]|->|→)?)?/;

/** "but not for home claims", "but never auto ones": a value said with the events' noun, left out. */
const BUT_NOT_FOR =
  /,?\s*\bbut (?:not|never)(?: for| on| from)? (?:the |any )?([a-z0-9][a-z0-9-]*) ([a-z]+)\b/g;

/** The value `m` leaves out (its first group), as a negated aside, cut out of the text (`span`: where). */
function leftOut(buf: RequestText, raw: string, m: RegExpMatchArray, span: boolean): Aside {
  const at = m.index!;
  cutOut(buf, m as RegExpExecArray);
  return {
    word: m[1]!,
    negated: true,
    group: false,
    said: raw.slice(at, at + m[0].length).trim(),
    ...(span ? { span: { at, length: m[0].length } } : {}),
  };
}

/** The events the request's first sentence leaves out, as a negated aside, cut out with the rest it names. */
export function readIgnored(buf: RequestText, raw: string, ctx: RequestContext): Aside[] {
  const m = IGNORED.exec(buf.text);
  // "ignore warning alerts.", "skip those ones.": a noun after the value is the events' own.
  if (!m || (m[2] !== undefined && !/^ones?$/.test(m[2]) && !isEventWord(m[2], ctx))) return [];
  // Only a value the events' samples show: "skip the payment.", "skip it." leave nothing out.
  const values = sampleValues(ctx.events ?? []);
  return lemmas(m[1]!).some((l) => values.has(l)) ? [leftOut(buf, raw, m, true)] : [];
}

/** The asides of the request, cut out of the text (see the file's comment). */
export function readAsides(buf: RequestText, raw: string, ctx: RequestContext): Aside[] {
  const out: Aside[] = [];
  // "pay it up to $500 but not for home claims": the value said with the events' own noun.
  for (const m of [...buf.text.matchAll(BUT_NOT_FOR)]) {
    if (!isEventWord(m[2]!, ctx) && !/^ones?$/.test(m[2]!)) continue;
    out.push(leftOut(buf, raw, m, false));
  }
  for (const m of [...buf.text.matchAll(PARENS)]) {
    const lead = (m[1] ?? '').replace(/ for$/, '');
    out.push({
      word: m[2]!,
      negated: NEGATION.test(lead),
      group: m[3] !== undefined && !/^ones?$/.test(m[3]),
      said: raw.slice(m.index, m.index + m[0].length),
    });
    cutOut(buf, m as RegExpExecArray);
  }
  for (const m of [...buf.text.matchAll(UNLESS_FROM)]) {
    out.push({
      word: m[1]!,
      negated: true,
      group: true,
      said: raw.slice(m.index, m.index + m[0].length).replace(/^,?\s*/, ''),
    });
    cutOut(buf, m as RegExpExecArray);
  }
  return out;
}

/** The trigger's tests for the asides, over the event's fields; a word no field holds is a question. */
export function asideTests(
  asides: readonly Aside[],
  event: string | undefined,
  ctx: RequestContext,
): string[] {
  const shape = ctx.events?.find((e) => e.type === event);
  if (!shape) return [];
  const out: string[] = [];
  for (const a of asides) {
    const test = a.group
      ? groupTest(a, event, ctx)
      : (() => {
          // "(verified only)": a yes/no field (flag-fields.ts).
          const flag = flagWordTest(a.word, a.negated, shape, ctx);
          if (flag !== undefined) return flag;
          const hit = fieldForValue(a.word, shape, ctx, { modifier: true });
          return hit
            ? `payload.${hit.field} ${a.negated ? '!=' : '=='} ${JSON.stringify(hit.value)}`
            : undefined;
        })();
    if (test !== undefined) {
      out.push(test);
      continue;
    }
    if (!a.group)
      ctx.questions.push({
        about: 'triggers.when',
        question: `I could not read "${a.word}" in "${a.said}": no field of the ${shape.type} event says it. Which field should the trigger test, and against what?`,
      });
  }
  return out;
}

/** A customer group as audienceCondition reads it, turned around when said so (it asks when no field fits). */
function groupTest(a: Aside, event: string | undefined, ctx: RequestContext): string | undefined {
  const cond = audienceCondition(a.word, event, ctx);
  if (cond === undefined || !a.negated) return cond;
  ctx.assumptions.push(`"${a.said}" is read as a test that it is not so: ${cond.replace(' == ', ' != ')}.`);
  return cond.replace(' == ', ' != ');
}
