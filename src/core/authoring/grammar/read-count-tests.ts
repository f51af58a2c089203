/**
 * Tests on a field that counts things, said as a bound on a count: "reported 5 or more times",
 * "posts with 10+ reports", "at least 3 flags", "more than 2 complaints", "3 reports or more", or
 * as the count reached ("reported 5 times", when a field counts what the verb names). They
 * are trigger conditions on the trigger event's payload field that counts those things
 * (`report_count` for "reports"; for "times", the event's one count field):
 * `payload.report_count >= 5`, listed under "Assumed". A count no field of the event holds, or
 * several, is asked about.
 *
 * Read before money is (so "more than 3 reports" is never $3), and only where the word after the
 * number names what some event of the catalog counts ("times" always does); a negation just before
 * it makes it a limit on an action, not a filter, and it is left to the other readers.
 */
import { lemmas } from '../request-words.ts';
import { NEGATED, type NumberTest, POST, PRE, value } from './read-number-tests.ts';
import { NUMBER_WORDS } from './read-spelling.ts';
import { cutOut, listOr, type RequestContext, type RequestText } from './request-context.ts';

export interface CountTest {
  readonly op: NumberTest['op'];
  readonly n: number;
  /** What is counted, as said ("reports", "times"). */
  readonly noun: string;
  readonly said: string;
}

const NUMBER = String.raw`([0-9]{1,6}|${NUMBER_WORDS})`;
const PRE_RE = [
  ...Object.keys(PRE),
  'reaches',
  'reach',
  'reached',
  'reaching',
  'hits',
  'hit',
  'hitting',
  'passes',
  'pass',
  'passed',
  'passing',
  'tops',
  'exceeds',
  'exceed',
  'exceeded',
].join('|');
/** Verbs of a count that say it went past the number, not only reached it ("passes 20 reports"). */
const PAST = /^(?:pass|passes|passed|passing|tops|exceed|exceeds|exceeded)$/;
/** Counts of times said in a word ("reported more than twice"). */
const TIMES_WORDS: Readonly<Record<string, number>> = { once: 1, twice: 2, thrice: 3 };
const POST_RE = Object.keys(POST).join('|');
const NOUN = '([a-z]{3,})';
const TEST = new RegExp(
  String.raw`\b(?:(${PRE_RE})\s+${NUMBER}\s+${NOUN}|${NUMBER}\s*\+\s*${NOUN}|${NUMBER}\s+(${POST_RE})\s+${NOUN}|${NUMBER}\s+${NOUN}\s+(${POST_RE})|([a-z]{3,}ed)\s+(?:(${PRE_RE})\s+)?(once|twice|thrice|(?:[0-9]{1,6}|${NUMBER_WORDS})\s+times)(?:\s+(${POST_RE}))?)\b`,
  'g',
);

/** A field that counts something: `report_count`, `num_flags`, `flag_count`. */
const isCount = (field: string) => /(?:^|_)(?:count|num|number)(?:_|$)/.test(field);
/** What a count field counts: its name without the count word ("report" for `report_count`). */
const counted = (field: string) => field.split('_').filter((p) => !/^(?:count|num|number|of)$/.test(p));
const names = (noun: string, field: string) =>
  counted(field).some((p) => lemmas(p).some((l) => lemmas(noun).includes(l)));

/** The bounds on a count the text says, cut out: only those a field of some catalog event counts. */
export function readCountTests(buf: RequestText, ctx: RequestContext): CountTest[] {
  const fields = (ctx.events ?? []).flatMap((e) => e.payload.filter(isCount));
  if (fields.length === 0) return [];
  const out: CountTest[] = [];
  for (const m of [...buf.text.matchAll(TEST)]) {
    if (NEGATED.test(buf.text.slice(0, m.index))) continue;
    const [, pre1, n1, noun1, n2, noun2, n3, post3, noun3, n4, noun4, post4, verb5, pre5, n5, post5] = m;
    // "reported more than twice", "flagged 3 times or more": the count of what the verb names.
    const times = n5 === undefined ? undefined : (TIMES_WORDS[n5] ?? value(n5.replace(/\s+times$/, '')));
    if (verb5 !== undefined && times === undefined) continue;
    const pre = pre1 ?? pre5;
    const said = n1 ?? n2 ?? n3 ?? n4 ?? n5!;
    // "reported 5 times": the count of what the verb names has reached the number (`>=`), and only
    // where a count field counts it (`report_count`), never any count.
    const noun = noun1 ?? noun2 ?? noun3 ?? noun4 ?? verb5!;
    const n = times ?? value(said);
    if (n === undefined) continue;
    if (noun !== 'times' && !fields.some((f) => names(noun, f))) continue;
    const op = pre
      ? (PRE[pre] ?? (PAST.test(pre) ? '>' : '>='))
      : n2 !== undefined || (verb5 !== undefined && post5 === undefined)
        ? '>='
        : POST[(post3 ?? post4 ?? post5)!]!;
    out.push({ op, n, noun, said: m[0] });
    cutOut(buf, m);
    // "posts with 10+ reports", "if a post has 5 or more", "spam w/ 5 reports", "once it's got more
    // than 10 reports": the words that lead to the count go too.
    const lead =
      /(?:\b(?:(?:once|when|whenever|if|after) (?:it|they|the [a-z]+)(?:'s|'ve|s| has| have)? )?(?:with|has|have|having|gets|get|got|receives|received|that (?:has|have|got|get))|\bw\/)\s*$/.exec(
        buf.text.slice(0, m.index),
      );
    if (lead) cutOut(buf, lead);
  }
  return out;
}

/** The tests as conditions on the trigger event's count field; a question when none fits, or several. */
export function countConditions(
  tests: readonly CountTest[],
  event: string | undefined,
  ctx: RequestContext,
): string[] {
  if (tests.length === 0) return [];
  const shape = ctx.events?.find((e) => e.type === event);
  const counts = (shape?.payload ?? []).filter(isCount);
  const out: string[] = [];
  for (const t of tests) {
    const fits = t.noun === 'times' ? counts : counts.filter((f) => names(t.noun, f));
    if (fits.length !== 1) {
      ctx.questions.push({
        about: 'triggers.when',
        question: `Which field of the ${event ?? 'trigger'} event should "${t.said}" test? ${
          fits.length > 1
            ? `${listOr(fits)} both count.`
            : shape?.payload.length
              ? `It carries ${listOr(shape.payload)}.`
              : ''
        }`.trim(),
        ...(fits.length > 1 ? { candidates: fits } : {}),
      });
      continue;
    }
    const test = `payload.${fits[0]} ${t.op} ${t.n}`;
    if (out.includes(test)) continue;
    out.push(test);
    ctx.assumptions.push(
      `"${t.said}" is read as a test on the ${event} event's ${fits[0]}: ${test.slice(8)}.`,
    );
  }
  return out;
}
