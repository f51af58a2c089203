/**
 * Tests on a field that counts time, said as a bound on a duration: "anyone asking for more than
 * thirty days", "2 weeks or more", "short requests (a week or less)", "longer than 48 hours". They
 * are trigger conditions on the trigger event's one payload field that counts time (its name ends
 * in its unit, `duration_days`, read-durations.ts), in that field's unit ("2 weeks" is 14 for
 * days): `payload.duration_days >= 14`. A duration said in another unit that is no whole number of
 * the field's is asked about, and so is a test when the event has no such field, or several.
 *
 * Read before money is (so "more than thirty days" is never $30), and never after a negation
 * ("never for more than 7 days" is a limit on what an action does, not a filter: asked about, as
 * before). "short" / "long" said of the requests beside such a test is the test's own word.
 * "anything shorter" / "anything longer" after one is its else (read-otherwise.ts's choice):
 * `elseAt` says where.
 */

import { durationUnit } from './read-durations.ts';
import { NUMBER_WORDS, numberWordsValue } from './read-spelling.ts';
import { cutOut, listOr, type RequestContext, type RequestText } from './request-context.ts';

export interface NumberTest {
  readonly op: '<' | '<=' | '>' | '>=';
  /** The duration, in minutes. */
  readonly minutes: number;
  /** The words as said, for questions and the read-back. */
  readonly said: string;
  /** Where the test began in the text. */
  readonly at: number;
}

const MINUTES: Readonly<Record<string, number>> = {
  minute: 1,
  min: 1,
  hour: 60,
  hr: 60,
  day: 1_440,
  week: 10_080,
  fortnight: 20_160,
};

export const PRE: Readonly<Record<string, NumberTest['op']>> = {
  'more than': '>',
  over: '>',
  'longer than': '>',
  above: '>',
  exceeding: '>',
  'at least': '>=',
  under: '<',
  'less than': '<',
  'shorter than': '<',
  below: '<',
  'fewer than': '<',
  'at most': '<=',
};
export const POST: Readonly<Record<string, NumberTest['op']>> = {
  'or more': '>=',
  'or longer': '>=',
  'or over': '>=',
  'or above': '>=',
  'or less': '<=',
  'or shorter': '<=',
  'or under': '<=',
  'or fewer': '<=',
  'or below': '<=',
  'or lower': '<=',
};

const NUMBER = String.raw`([0-9]{1,4}|a|an|one|${NUMBER_WORDS})`;
const UNIT = String.raw`(minutes?|mins?|hours?|hrs?|days?|weeks?|fortnights?)`;
const PRE_RE = Object.keys(PRE).join('|');
const POST_RE = Object.keys(POST).join('|');
// "more than 3 days", "3 days or more", "3 or more days", "5+ days".
const TEST = new RegExp(
  String.raw`\b(?:(${PRE_RE})\s+${NUMBER}[\s-]${UNIT}|${NUMBER}[\s-]${UNIT}\s+(${POST_RE})|${NUMBER}\s+(${POST_RE})\s+${UNIT}|${NUMBER}\s*(\+)\s*${UNIT})\b`,
  'g',
);
/** A negation just before the test: a limit on an action ("never for more than 7 days"), not a filter. */
export const NEGATED = /\b(?:never|not|no|don'?t|dont|do not|nothing|without)\s+(?:[a-z]+\s+){0,4}$/;

/** A number said in digits or words ("a", "one", "thirty"). */
export const value = (n: string): number | undefined =>
  /^(?:a|an|one)$/.test(n) ? 1 : /^[0-9]+$/.test(n) ? Number(n) : numberWordsValue(n);

/** The bounds on a duration the text says, cut out (with "short"/"long" said beside them). */
export function readNumberTests(buf: RequestText): NumberTest[] {
  const out: NumberTest[] = [];
  for (const m of [...buf.text.matchAll(TEST)]) {
    if (NEGATED.test(buf.text.slice(0, m.index))) continue;
    const [, pre, n1, u1, n2, u2, post2, n3, post3, u3, n4, plus, u4] = m;
    const n = value((n1 ?? n2 ?? n3 ?? n4)!);
    const unit = (u1 ?? u2 ?? u3 ?? u4)!.replace(/s$/, '');
    if (n === undefined || n <= 0 || MINUTES[unit] === undefined) continue;
    const op = pre ? PRE[pre]! : plus ? '>=' : POST[(post2 ?? post3)!]!;
    out.push({ op, minutes: n * MINUTES[unit]!, said: m[0], at: m.index });
    cutOut(buf, m);
    // "anyone asking for more than thirty days": who asks, and "for", are the test's lead-in.
    const lead =
      /(?:\b(?:anyone|anybody|someone|somebody|people|those|users?|employees?)\s+(?:who\s+)?(?:asking|asks?|requesting|requests?|wanting|wants?)\s+)?\bfor\s*$/.exec(
        buf.text.slice(0, m.index),
      );
    if (lead) cutOut(buf, lead);
  }
  if (out.length > 0)
    // "short requests (a week or less)", "long ones": the test's own word.
    for (const m of [...buf.text.matchAll(/\b(?:short|shorter|long|longer|brief)\b(?=\s+[a-z]+\s*\(\s)/g)])
      cutOut(buf, m);
  return out;
}

/** "anything shorter", "anything longer", "everything else" after a test: where its else begins. */
export function readElse(buf: RequestText): { at: number; end: number } | undefined {
  const m =
    /(?:^|[.;,?!]\s*|\s)(anything|everything|any request|requests?)\s+(?:shorter|longer|else)\b\s*,?/.exec(
      buf.text,
    );
  if (!m) return undefined;
  return { at: m.index, end: m.index + m[0].length };
}

/** The unit an event field counts time in: its name's last part (`duration_days`) or first (`days_late`). */
function fieldUnit(name: string): string | undefined {
  return (
    durationUnit(name) ?? /^(minutes?|mins?|hours?|hrs?|days?|weeks?)_/.exec(name)?.[1]?.replace(/s$/, '')
  );
}

/** The tests as conditions on the event's one field that counts time; a question when none fits. */
export function numberConditions(
  tests: readonly NumberTest[],
  event: string | undefined,
  ctx: RequestContext,
): string[] {
  if (tests.length === 0) return [];
  const shape = ctx.events?.find((e) => e.type === event);
  const fields = (shape?.payload ?? []).filter((p) => fieldUnit(p) !== undefined);
  const out: string[] = [];
  for (const t of tests) {
    const field = fields.length === 1 ? fields[0]! : undefined;
    const per = field ? MINUTES[fieldUnit(field)!] : undefined;
    if (!field || per === undefined || t.minutes % per !== 0) {
      ctx.questions.push({
        about: 'triggers.when',
        question: field
          ? `"${t.said}" is no whole number of ${fieldUnit(field)}s, which ${event}'s ${field} counts in. Which bound is meant?`
          : `Which field of the ${event ?? 'trigger'} event should "${t.said}" test? ${shape?.payload.length ? `It carries ${listOr(shape.payload)}.` : ''}`.trim(),
      });
      continue;
    }
    const test = `payload.${field} ${t.op} ${t.minutes / per}`;
    if (out.includes(test)) continue;
    out.push(test);
    ctx.assumptions.push(
      `"${t.said}" is read as a test on the ${event} event's ${field}: ${field} ${t.op} ${t.minutes / per}.`,
    );
  }
  return out;
}
