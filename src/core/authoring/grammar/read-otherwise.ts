/**
 * The branch part of the grammar: a test with an else is a choice (`choose:` with one branch and an
 * `else`, docs/flow.md). Three word orders:
 *
 *   "refund it if it's under $20, otherwise reply ..."        the action before the test
 *   "if it's over 300 flag it, otherwise reimburse it"        the actions between the test and "otherwise"
 *   "refund it unless it's more than 150, in that case tag it instead"  the test's actions after it,
 *                                                            the action before it is the else
 *
 * The test is money ("over 300", "more than 5k", "under $20": the trigger event's one amount field)
 * or a word a field of the event holds ("if an alert is critical": read by read-field-tests.ts once
 * the trigger is known). Cuts the test and the branches out of the text; the words before the test
 * ("if a refund request is") stay for the trigger reader.
 */
import { isActionVerb } from '../request-words.ts';
import type { NumberTest } from './read-number-tests.ts';
import { cutOut, type RequestText } from './request-context.ts';

/** A test with an else, as the request says it. */
export interface Otherwise {
  /** Position in the text where the test began: the clause just before it is the branch's (`after`). */
  readonly at: number;
  /** Where the else part ended: clauses after it run after the choice. */
  readonly end: number;
  /** `after`: "A if test, otherwise B"; `first`: "if test, A, otherwise B"; `unless`: "A unless test, in that case B". */
  readonly order: 'after' | 'first' | 'unless';
  readonly test: MoneyTest | WordTest | SaidTest | DurationTest;
  /** No else: the test's steps carry `if:` while the others run regardless (read-step-tests.ts). */
  readonly stepIf?: boolean;
  /** The actions when the test holds, when said apart from the text before the test (order `first`, `unless`). */
  readonly yes?: { readonly text: string; readonly raw: string };
  /** The else part (order `after`, `first`), or the action before "unless" is read from the text. */
  readonly text: string;
  readonly raw: string;
}

export interface MoneyTest {
  readonly kind: 'money';
  readonly op: '<' | '<=' | '>' | '>=';
  readonly usd: number;
}

/** "if an alert is critical": a word some field of the event holds (resolved once the event is known). */
export interface WordTest {
  readonly kind: 'word';
  readonly word: string;
  /** What the test is said of, when it names no event ("if the reason is fraud": reason). */
  readonly of?: string;
}

/** A test already written as a condition ("if they're not active in the directory"), with its words. */
export interface SaidTest {
  readonly kind: 'condition';
  readonly when: string;
  readonly said: string;
}

/** A bound on a duration ("2 weeks or more"): a test on the event's one field that counts time. */
export interface DurationTest {
  readonly kind: 'duration';
  readonly test: NumberTest;
}

const OPS: Record<string, MoneyTest['op']> = {
  under: '<',
  below: '<',
  'less than': '<',
  'at most': '<=',
  over: '>',
  above: '>',
  'more than': '>',
  'greater than': '>',
  'bigger than': '>',
  'larger than': '>',
  'at least': '>=',
};

/** "$5,000", "300", "5k", "12.50", "150 dollars": dollars (a bare number after a bound word is dollars). */
const AMOUNT = String.raw`\$?\s?((?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]{1,2})?k?)(?:\s?(?:dollars|bucks|usd|\$))?(?![0-9a-z%])`;
const OP = String.raw`(under|below|less than|at most|over|above|more than|greater than|bigger than|larger than|at least)`;
/** "$50 or less", "100 or more": the bound said after the amount. */
const POST_OP = String.raw`(or less|or under|or below|or lower|or more|or over|or above|or higher|and under|and up|and above)`;
const POST: Record<string, MoneyTest['op']> = {
  'or less': '<=',
  'or under': '<=',
  'or below': '<=',
  'or lower': '<=',
  'and under': '<=',
  'or more': '>=',
  'or over': '>=',
  'or above': '>=',
  'or higher': '>=',
  'and up': '>=',
  'and above': '>=',
};
/** Words a word test never is: what the test is said of, not a value ("if it's ..."). */
export const NOT_A_VALUE =
  /^(?:it|its|it's|they|them|this|that|these|those|the|a|an|so|not|there|we|you|i|over|under|above|below|more|less|at|in|on|from|for|by|is|are|was|were|be|been)$/;
/** What the test is said of: "it's", "its", "the total is", "a refund request is", "an alert   " ('s cut). */
export const SUBJECT = String.raw`(?:(?:it's|its|it is|they're|theyre|they are|it|that's|thats|that is)\s+|(?:someone|somebody|anyone|anybody|they|the (?:employee|requester|user|person|customer))\s+(?:wants|want|asks for|ask for|is asking for|are asking for|requests|needs|asked for|requested)\s+(?:an?\s+|the\s+)?|(?:the|a|an)\s+[a-z]+(?:\s+[a-z]+)?\s+(?:is\s+|are\s+|\s+)?)?`;
const ELSE = String.raw`(?:otherwise|else|if not|or else)`;
const END = String.raw`[^.;!?]*`;

/**
 * The test with an else the text says, cut out. `eventNoun` tells a word naming an event ("if a
 * refund request is ...": those words stay for the trigger reader) from one naming a field ("if the
 * reason is fraud": the test's field).
 */
export function readOtherwise(
  buf: RequestText,
  raw: string,
  eventNoun: (word: string) => boolean = () => false,
): Otherwise | undefined {
  return afterAction(buf, raw) ?? testFirst(buf, raw, eventNoun) ?? unlessThen(buf, raw);
}

/** "the reason is", "a refund request is": the words the test is said of, and whether one names an event. */
function subjectOf(lead: string, eventNoun: (w: string) => boolean): { of?: string; event: boolean } {
  const m = /\b(?:the|a|an|its|their)\s+([a-z_]+(?:\s+(?!(?:is|are)\b)[a-z_]+)?)\s*(?:is|are)?\s*$/.exec(
    lead,
  );
  if (!m) return { event: false };
  const words = m[1]!.split(/\s+/);
  return words.some(eventNoun) ? { event: true } : { of: words.join('_'), event: false };
}

function money(op: string, amount: string): MoneyTest {
  const t = amount.replace(/,/g, '');
  const usd = t.endsWith('k') ? Math.round(Number(t.slice(0, -1)) * 1000 * 100) / 100 : Number(t);
  return { kind: 'money', op: OPS[op] ?? POST[op]!, usd };
}

/** The money test of a match: its operator before the amount (groups 1, 2) or after it (groups 3, 4). */
export function moneyOf(m: RegExpExecArray, at: number): MoneyTest {
  return m[at] !== undefined ? money(m[at]!, m[at + 1]!) : money(m[at + 3]!, m[at + 2]!);
}

/** A money test: "over 300", "more than $5k", or "$50 or less" (4 groups). */
export const MONEY_TEST = String.raw`(?:${OP}\s+${AMOUNT}|${AMOUNT}\s+${POST_OP})`;

/** "refund it if it's under $20, otherwise reply ...". */
function afterAction(buf: RequestText, raw: string): Otherwise | undefined {
  const m = new RegExp(
    String.raw`(?:,\s*)?\b(?:(?:only )?(?:if|when) (?:it's |its |it is |they're |they are |the amount is |the total is )?)?${MONEY_TEST}\s*(?:,\s*|;\s*|\.\s*)?${ELSE}\b,?\s*(?:just\s+)?(${END})`,
  ).exec(buf.text);
  if (!m) return undefined;
  const elseAt = m.index + m[0].length - m[5]!.length;
  const end = m.index + m[0].length;
  const out: Otherwise = {
    at: m.index,
    end,
    order: 'after',
    test: moneyOf(m, 1),
    text: buf.text.slice(elseAt, end),
    raw: raw.slice(elseAt, end),
  };
  cutOut(buf, m);
  return out;
}

/** A word an action starts with: an action's verb, or a word said before one ("just", "never"). */
function startsAction(w: string): boolean {
  return (
    /^(?:just|also|then|please|pls|do|don't|dont|never|always|immediately|auto|automatically)$/.test(w) ||
    isActionVerb(w)
  );
}

/** "if it's over 300 flag it, otherwise reimburse it", "if an alert is critical open a sev1 otherwise a sev3". */
function testFirst(buf: RequestText, raw: string, eventNoun: (w: string) => boolean): Otherwise | undefined {
  // A money test after "if" or "when"; a word test only after "if" ("when an invoice is received"
  // is a trigger), never a word that says something happened ("if it's resolved").
  const tests = [
    String.raw`\b(?:only )?(?:if|when)\s+${SUBJECT}()${MONEY_TEST}()`,
    // (A whole word: never the head of one, "arrive" of "arrived damaged".)
    String.raw`\b(?:only )?if\s+${SUBJECT}()()()()()([a-z][a-z0-9-]*(?<!ed)\b)`,
  ];
  for (const test of tests) {
    const m = new RegExp(
      String.raw`${test}\s*,?\s*(${END}?)\s*[,;.]?\s*\b${ELSE}\b,?\s*(?:just\s+)?(${END})`,
      'd',
    ).exec(buf.text);
    if (!m?.indices) continue;
    // Group 6 is the word of a word test; empty in a money test.
    if (m[6] && NOT_A_VALUE.test(m[6])) continue;
    // The word is the whole value only when an action follows it ("if the reason is fraud refund it"),
    // or a comma: "if the reason is never arrived refund it" says a value of several words.
    const next = /^\s*(,)?\s*([a-z']+)/.exec(buf.text.slice(m.indices[6]![1]));
    if (m[6] && next && next[1] === undefined && !startsAction(next[2]!)) continue;
    const [yesAt, yesEnd] = m.indices[7]!;
    if (!/[a-z]/.test(m[7]!.replace(/"q[0-9]+"/g, ''))) continue;
    // The test starts at its operator or word; the words before it stay for the trigger reader when
    // they name an event ("if a refund request is"), not when they are "it's" or a field ("the reason is").
    const lead = buf.text.slice(m.index, m.indices[1]![0]);
    const subject = subjectOf(lead, eventNoun);
    const at = subject.event ? m.indices[1]![0] : m.index;
    const [elseAt, end] = m.indices[8]!;
    const out: Otherwise = {
      at: m.index,
      end,
      order: 'first',
      test: m[6] ? { kind: 'word', word: m[6], ...(subject.of ? { of: subject.of } : {}) } : moneyOf(m, 2),
      yes: { text: buf.text.slice(yesAt, yesEnd), raw: raw.slice(yesAt, yesEnd) },
      text: buf.text.slice(elseAt, end),
      raw: raw.slice(elseAt, end),
    };
    cutOut(buf, { index: at, 0: buf.text.slice(at, end) });
    return out;
  }
  return undefined;
}

/** "refund in full unless it's more than 150, in that case tag it large-refund instead" ("then ... instead" too). */
function unlessThen(buf: RequestText, raw: string): Otherwise | undefined {
  const m = new RegExp(
    String.raw`\bunless\s+${SUBJECT}(?:${MONEY_TEST}|([a-z][a-z0-9-]*))\s*[,;]?\s*(?:and\s+)?(?:in (?:that|which) case|in that event|if (?:so|it is|it does|they are)|then)\b,?\s*(${END}?)(?:\s+instead)?\s*(?=[.;!?]|$)`,
    'd',
  ).exec(buf.text);
  if (!m?.indices) return undefined;
  if (m[5] !== undefined && NOT_A_VALUE.test(m[5])) return undefined;
  // "approve it unless it's alcohol, then pay them back": "then" is the next step, not the case the
  // test names, unless the words say "instead" ("..., then tag it instead").
  if (/\bthen\b,?\s*$/.test(buf.text.slice(m.index, m.indices[6]![0])) && !/\binstead\s*$/.test(m[0]))
    return undefined;
  const yes = m[6]!;
  if (!/[a-z]/.test(yes.replace(/"q[0-9]+"/g, ''))) return undefined;
  const end = m.index + m[0].length;
  const yesAt = m.indices[6]![0];
  const test: Otherwise['test'] = m[5] === undefined ? moneyOf(m, 1) : { kind: 'word', word: m[5] };
  const out: Otherwise = {
    at: m.index,
    end,
    order: 'unless',
    test,
    yes: { text: buf.text.slice(yesAt, yesAt + yes.length), raw: raw.slice(yesAt, yesAt + yes.length) },
    text: '',
    raw: '',
  };
  cutOut(buf, { index: m.index, 0: buf.text.slice(m.index, end) });
  return out;
}
