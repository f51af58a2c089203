/**
 * Tests on a field named in words, said as a bound on a number: "a risk score over 90", "risk score
 * 90 or above", "the score is at least 70", "days late more than 5". The words are the field's name
 * ("risk score" for `risk_score`), or its last part alone where only one field of the events ends
 * with it ("score"). They are trigger conditions on the trigger event's field
 * (`payload.risk_score >= 90`), listed under "Assumed"; a field the trigger event does not carry is
 * asked about.
 *
 * Read before money is (so "a risk score over 90" is never $90), and never for a field of money
 * (`amount_usd`, a total, a price, a fee: the money readers' own) or a field whose samples are
 * words or yes/no. A negation just before it makes it a limit on an action: left to the other
 * readers.
 */
import { NEGATED, type NumberTest, POST, PRE, value } from './read-number-tests.ts';
import { NUMBER_WORDS } from './read-spelling.ts';
import { cutOut, type RequestContext, type RequestText } from './request-context.ts';

export interface FieldNumberTest {
  readonly field: string;
  readonly op: NumberTest['op'] | '==';
  readonly n: number;
  readonly said: string;
  /** Where in the text it is said. */
  readonly at: number;
}

/** Fields of money, left to the money readers. */
const MONEY = /(?:^|_)(?:usd|eur|gbp|amount|total|price|cost|fee|fees|balance|paid|owed)(?:_|$)/;
const NUMBER = String.raw`([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+(?:\.[0-9]+)?|${NUMBER_WORDS})`;
const PRE_RE = Object.keys(PRE).join('|');
const POST_RE = Object.keys(POST).join('|');

/** The fields a number may be compared with, by the words that name them. */
function namedFields(ctx: RequestContext): Map<string, string> {
  const shapes = ctx.events ?? [];
  const fields = new Set(
    shapes.flatMap((e) =>
      e.payload.filter(
        (f) =>
          !MONEY.test(f) && !e.flags?.includes(f) && (e.values?.[f]?.length ?? 0) === 0 && !/_id$/.test(f),
      ),
    ),
  );
  const out = new Map<string, string>();
  const last = new Map<string, string[]>();
  for (const f of fields) {
    const parts = f.split('_');
    if (parts.length > 1) out.set(parts.join(' '), f);
    const tail = parts.at(-1)!;
    last.set(tail, [...(last.get(tail) ?? []), f]);
  }
  for (const [tail, fs] of last) if (fs.length === 1 && !out.has(tail)) out.set(tail, fs[0]!);
  return out;
}

/** A field's name as said before a number: its words, or its one word as a verb ("scoring 80+"). */
function saidAs(name: string): string {
  const words = name.replace(/ /g, String.raw`[\s_-]+`);
  if (name.includes(' ')) return words;
  const stem = name.endsWith('e') ? name.slice(0, -1) : name;
  return `${words}|${stem}(?:ing|ed|es|s)|${name}[sd]`;
}

/** The field a name said names: its words, or a verb form of its one word. */
function fieldSaid(said: string, names: Map<string, string>): string | undefined {
  const words = said.replace(/[\s_-]+/g, ' ');
  if (names.has(words)) return names.get(words);
  return [...names].find(([n]) => !n.includes(' ') && new RegExp(`^(?:${saidAs(n)})$`).test(words))?.[1];
}

/** Words that say what the events have, right before a field's test ("with", "w/"). */
const HAS = String.raw`(?:\b(?:with|has|have|having|whose)|\bw\/)`;
/** Before a number said first: those words, or "and" after another test. */
const LEAD = new RegExp(String.raw`(?:${HAS}|\band)\s+$`);
/** The words that lead to a field's test, cut out with it ("flagged w/ risk score 90 or above"). */
const LEAD_CUT = new RegExp(String.raw`${HAS}\s+(?:(?:a|an|the|their|its)\s+)?$`);

/** The bounds on a named field the text says, cut out. */
export function readFieldNumbers(buf: RequestText, ctx: RequestContext): FieldNumberTest[] {
  const names = namedFields(ctx);
  if (names.size === 0) return [];
  const said = [...names.keys()].sort((a, b) => b.length - a.length).map(saidAs);
  const multi = [...names.keys()].filter((n) => n.includes(' ')).map(saidAs);
  const NAME = `(${said.join('|')})`;
  const BOUND = String.raw`(?:(${PRE_RE})\s+${NUMBER}|${NUMBER}\s*(?:(\+)|(${POST_RE})))`;
  // Each form, and how its match reads: [the name said, a word before the number, the number in
  // digits or words, "+", a word after the number].
  type Parts = (g: string[]) => (string | undefined)[];
  const forms: [RegExp, Parts][] = [
    // "a risk score over 90", "score 70+", "scoring 80+"
    [
      new RegExp(String.raw`\b${NAME}\s+(?:(?:is|was|of|at|=)\s+)?${BOUND}(?![0-9a-z$%])`, 'g'),
      (g) => g.slice(1, 7),
    ],
    // "with 3 or more missed payments", "and more than 2 open claims", "with 5+ chargebacks"
    [new RegExp(String.raw`(?<![0-9a-z$])${BOUND}\s+${NAME}\b`, 'g'), (g) => [g[6], ...g.slice(1, 6)]],
  ];
  // "no open claims": a field of several words, none of it
  if (multi.length > 0)
    forms.push([new RegExp(String.raw`\bno\s+(${multi.join('|')})\b`, 'g'), (g) => [g[1], undefined, '0']]);
  // "when payment fails on attempt 4", "at attempt #2": the one value ("on attempt 3 or later" is
  // a bound, left to the other forms or asked)
  forms.push([
    new RegExp(
      String.raw`\b(?:on|at)\s+(?:the\s+)?${NAME}\s+(?:#\s*|no\.?\s*|number\s+)?([0-9]{1,3})(?![0-9a-z$%]|\.[0-9]|\s*(?:\+|or\b|and (?:up|above|later|beyond|after|over)\b|onwards?\b|plus\b))`,
      'g',
    ),
    (g) => [g[1], undefined, g.at(-1)],
  ]);
  const out: FieldNumberTest[] = [];
  for (const [i, [re, parts]] of forms.entries())
    for (const m of [...buf.text.matchAll(re)]) {
      const before = buf.text.slice(0, m.index);
      if (NEGATED.test(before)) continue;
      // Said first, the number must be said of the events: "with 3 or more missed payments";
      // "after 3 or more attempts" is a step's test, not read here.
      if (i === 1 && !LEAD.test(before)) continue;
      const [name, pre, n1, n2, plus, post] = parts([...m]);
      const digits = (n1 ?? n2)!.replace(/,/g, '');
      // ("a score above 0.9": a fraction too.)
      const n = /^[0-9]+\.[0-9]+$/.test(digits) ? Number(digits) : value(digits);
      const field = fieldSaid(name!, names);
      if (n === undefined || field === undefined) continue;
      const op = i >= 2 ? '==' : pre ? PRE[pre]! : plus ? '>=' : POST[post!]!;
      out.push({ field, op, n, said: m[0], at: m.index });
      cutOut(buf, m);
      const lead = LEAD_CUT.exec(buf.text.slice(0, m.index));
      if (lead) cutOut(buf, lead);
    }
  // In the order the words give them.
  return out.sort((a, b) => a.at - b.at);
}

/** The tests as conditions on the trigger event's fields; a question for a field it does not carry. */
export function fieldNumberConditions(
  tests: readonly FieldNumberTest[],
  event: string | undefined,
  ctx: RequestContext,
): string[] {
  const shape = ctx.events?.find((e) => e.type === event);
  const out: string[] = [];
  for (const t of tests) {
    if (!shape?.payload.includes(t.field)) {
      ctx.questions.push({
        about: 'triggers.when',
        question: `"${t.said}" tests ${t.field}, which the ${event ?? 'trigger'} event does not carry. Which field should it test?`,
      });
      continue;
    }
    const test = `payload.${t.field} ${t.op} ${t.n}`;
    if (out.includes(test)) continue;
    out.push(test);
    ctx.assumptions.push(
      `"${t.said}" is read as a test on the ${event} event's ${t.field}: ${test.slice(8)}.`,
    );
  }
  return out;
}
