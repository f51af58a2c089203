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
import { cutOut, type RequestText } from './request-context.ts';

/** A test with an else, as the request says it. */
export interface Otherwise {
  /** Position in the text where the test began: the clause just before it is the branch's (`after`). */
  readonly at: number;
  /** Where the else part ended: clauses after it run after the choice. */
  readonly end: number;
  /** `after`: "A if test, otherwise B"; `first`: "if test, A, otherwise B"; `unless`: "A unless test, in that case B". */
  readonly order: 'after' | 'first' | 'unless';
  readonly test: MoneyTest | WordTest;
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
/** What the test is said of: "it's", "its", "the total is", "a refund request is", "an alert   " ('s cut). */
const SUBJECT = String.raw`(?:(?:it's|its|it is|they're|theyre|they are|it|that's|thats|that is)\s+|(?:the|a|an)\s+[a-z]+(?:\s+[a-z]+)?\s+(?:is\s+|are\s+|\s+)?)?`;
const ELSE = String.raw`(?:otherwise|else|if not|or else)`;
const END = String.raw`[^.;!?]*`;

export function readOtherwise(buf: RequestText, raw: string): Otherwise | undefined {
  return afterAction(buf, raw) ?? testFirst(buf, raw) ?? unlessThen(buf, raw);
}

function money(op: string, amount: string): MoneyTest {
  const t = amount.replace(/,/g, '');
  const usd = t.endsWith('k') ? Math.round(Number(t.slice(0, -1)) * 1000 * 100) / 100 : Number(t);
  return { kind: 'money', op: OPS[op]!, usd };
}

/** "refund it if it's under $20, otherwise reply ...". */
function afterAction(buf: RequestText, raw: string): Otherwise | undefined {
  const m = new RegExp(
    String.raw`(?:,\s*)?\b(?:(?:only )?(?:if|when) (?:it's |its |it is |they're |they are |the amount is |the total is )?)?${OP}\s+${AMOUNT}\s*(?:,\s*|;\s*|\.\s*)?${ELSE}\b,?\s*(?:just\s+)?(${END})`,
  ).exec(buf.text);
  if (!m) return undefined;
  const elseAt = m.index + m[0].length - m[3]!.length;
  const end = m.index + m[0].length;
  const out: Otherwise = {
    at: m.index,
    end,
    order: 'after',
    test: money(m[1]!, m[2]!),
    text: buf.text.slice(elseAt, end),
    raw: raw.slice(elseAt, end),
  };
  cutOut(buf, m);
  return out;
}

/** "if it's over 300 flag it, otherwise reimburse it", "if an alert is critical open a sev1 otherwise a sev3". */
function testFirst(buf: RequestText, raw: string): Otherwise | undefined {
  // A money test after "if" or "when"; a word test only after "if" ("when an invoice is received"
  // is a trigger), never a word that says something happened ("if it's resolved").
  const tests = [
    String.raw`\b(?:only )?(?:if|when)\s+${SUBJECT}${OP}\s+${AMOUNT}()`,
    String.raw`\b(?:only )?if\s+${SUBJECT}()()(?!(?:over|under|above|below|more|less|at|not|in|on|from|for)\b)([a-z][a-z0-9-]*(?<!ed))`,
  ];
  for (const test of tests) {
    const m = new RegExp(
      String.raw`${test}\s*,?\s*(${END}?)\s*[,;]?\s*\b${ELSE}\b,?\s*(?:just\s+)?(${END})`,
      'd',
    ).exec(buf.text);
    if (!m?.indices) continue;
    const [yesAt, yesEnd] = m.indices[4]!;
    if (!/[a-z]/.test(m[4]!.replace(/"q[0-9]+"/g, ''))) continue;
    // The test starts at its operator or word: "if a refund request is" stays for the trigger reader.
    const at = m.indices[1]![0];
    const [elseAt, end] = m.indices[5]!;
    const out: Otherwise = {
      at: m.index,
      end,
      order: 'first',
      test: m[1] ? money(m[1], m[2]!) : { kind: 'word', word: m[3]! },
      yes: { text: buf.text.slice(yesAt, yesEnd), raw: raw.slice(yesAt, yesEnd) },
      text: buf.text.slice(elseAt, end),
      raw: raw.slice(elseAt, end),
    };
    cutOut(buf, { index: at, 0: buf.text.slice(at, end) });
    return out;
  }
  return undefined;
}

/** "refund in full unless it's more than 150, in that case tag it large-refund instead". */
function unlessThen(buf: RequestText, raw: string): Otherwise | undefined {
  const m = new RegExp(
    String.raw`\bunless\s+${SUBJECT}(?:${OP}\s+${AMOUNT}|([a-z][a-z0-9-]*))\s*[,;]?\s*(?:and\s+)?(?:in (?:that|which) case|in that event|if (?:so|it is|it does|they are)|then)\b,?\s*(${END}?)(?:\s+instead)?\s*(?=[.;!?]|$)`,
    'd',
  ).exec(buf.text);
  if (!m?.indices) return undefined;
  const yes = m[4]!;
  if (!/[a-z]/.test(yes.replace(/"q[0-9]+"/g, ''))) return undefined;
  const end = m.index + m[0].length;
  const yesAt = m.indices[4]![0];
  const test: Otherwise['test'] = m[1] ? money(m[1], m[2]!) : { kind: 'word', word: m[3]! };
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
