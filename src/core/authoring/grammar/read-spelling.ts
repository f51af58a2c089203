/**
 * How people type, read before the rest of the grammar: contractions and possessives ("refund's
 * requested", "someone's ticket"), money said in words ("twenty-five bucks", "a couple hundred",
 * "more than forty" -> $25, $200, $40), amounts in a currency the tools do not use ("£30", "forty
 * quid", "400 euros": a question, never a dollar cap), and text a reply or message says without
 * quotes ("answer them that we'll check" -> "We'll check."). Every reading that is not literal is
 * listed in `ctx.assumptions`, so the read-back says it. Length-preserving, like readPhrases: every
 * later reader can still point back into the request by position.
 */
import { formatCents, formatUsd, isUsdAmount } from '../../money.ts';
import { UNITS } from '../request-words.ts';
import { usdOfDigits } from './read-amounts.ts';
import { cutOut, type RequestContext, type RequestText } from './request-context.ts';

const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const SMALL = `(?:(?:${TENS.slice(2).join('|')})(?:[- ](?:${UNITS.slice(1, 10).join('|')}))?|${UNITS.slice(1).join('|')}|a couple(?: of)?|a few|a)`;
/**
 * What follows "hundred": "and five", "fifty", "twenty-five"; never a bare unit ("three hundred
 * one time", "two hundred two times") nor "a" ("a hundred a day").
 */
const TAIL = `(?:and ${SMALL}|(?:${TENS.slice(2).join('|')})(?:[- ](?:${UNITS.slice(1, 10).join('|')}))?)`;
/** "five hundred and fifty", "two hundred fifty", "two thousand", "a couple hundred", "forty". */
export const NUMBER_WORDS = `(?:${SMALL}(?: hundred(?: ${TAIL})?)?(?: thousand(?: (?:and )?${SMALL}(?: hundred)?)?)?)`;

/**
 * An amount in a currency the tools do not count ("£20", "20 quid", "fifty euros"): a question,
 * never read as dollars. One pattern and one question for the grammar and the safety check, so
 * a request that both see is asked once.
 */
export const FOREIGN_AMOUNT = String.raw`(?:[£€]\s?[0-9][0-9,]*(?:\.[0-9]{1,2})?k?|\b(?:[0-9][0-9,]*(?:\.[0-9]{1,2})?k?|${NUMBER_WORDS})\s?(?:quid|pounds?|gbp|euros?|eur|sterling|cad|aud|nzd|chf|jpy|yen|inr|rupees?|canadian dollars|australian dollars)\b)`;

/** The question an amount in another currency (`amount`, as the request says it) asks. */
export const foreignAmountQuestion = (amount: string): string =>
  `The request names ${amount.trim()}, but the tools and the spend cap count US dollars. What is the amount in dollars?`;

/** The value of a phrase matching NUMBER_WORDS; undefined when it is not one. */
export function numberWordsValue(phrase: string): number | undefined {
  const small = (s: string): number | undefined => {
    const t = s.trim();
    if (t === 'a') return 1;
    if (/^a couple(?: of)?$/.test(t)) return 2;
    if (t === 'a few') return undefined;
    const [tens, unit] = t.split(/[- ]/);
    const ti = TENS.indexOf(tens ?? '');
    if (ti >= 2) return ti * 10 + (unit ? UNITS.indexOf(unit) : 0);
    const u = UNITS.indexOf(t);
    return u >= 1 ? u : undefined;
  };
  const m = /^(.+?)(?: (hundred)(?: (?:and )?(.+?))??)?(?: (thousand)(?: (?:and )?(.+?)( hundred)?)?)?$/.exec(
    phrase.trim(),
  );
  if (!m) return undefined;
  const head = small(m[1]!);
  if (head === undefined) return undefined;
  let n = m[2] ? head * 100 + (m[3] ? (small(m[3]) ?? Number.NaN) : 0) : head;
  if (m[4]) n = n * 1000 + (m[5] ? (small(m[5]) ?? Number.NaN) * (m[6] ? 100 : 1) : 0);
  if (m[3] && !m[2]) return undefined;
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** Words before an amount that make a bare number a money bound ("more than forty"). */
const BOUND_WORDS = `(?:under|below|less than|up to|at most|no more than|not more than|not above|not over|more than|more then|over|above|max(?:imum)?(?: of)?|capped at|cap(?: it)? at|limit(?: it)? (?:to|at)|limit is|budget(?: of)?|within|exceeding)`;

/** Reads contractions, money words and foreign amounts in `buf` (see the file's comment). */
export function readSpelling(buf: RequestText, ctx: RequestContext): void {
  const put = (at: number, len: number, s: string) => {
    buf.text = buf.text.slice(0, at) + s.padEnd(len, ' ') + buf.text.slice(at + len);
  };
  // Possessives and "'s" for is/has after a noun: blanked ("refund's requested" -> "refund requested").
  for (const m of buf.text.matchAll(/\b(?!(?:it|that|there|let|what|he|she|who|here)')([a-z]+)'s\b/g))
    put(m.index + m[1]!.length, 2, '');
  // "customers who were charged twice": why they ask for their money back, not how often to pay it.
  for (const m of buf.text.matchAll(
    /\b(?:who|that) (?:were|was|got|have been|has been|are|get) (?:charged|billed) twice\b|\b(?:who|that) (?:were|was|got|have been|has been) double[- ](?:charged|billed)\b/g,
  )) {
    put(m.index, m[0].length, '');
    ctx.assumptions.push(
      `"${m[0]}" is read as why customers ask for a refund; it is not tested (no event field says it).`,
    );
  }
  // "more then 90": the common slip.
  for (const m of buf.text.matchAll(/\b(more|less|greater|bigger|larger|higher|other) then\b/g))
    put(m.index + m[1]!.length + 1, 4, 'than');
  // An amount in a currency the tools do not use is a question, never read as dollars.
  const foreign = new RegExp(FOREIGN_AMOUNT, 'g');
  for (let m = foreign.exec(buf.text); m; m = foreign.exec(buf.text)) {
    ctx.questions.push({ about: 'limits.maxCostUsd', question: foreignAmountQuestion(m[0]) });
    cutOut(buf, m);
  }
  // Cents said in words are whole cents in digits ("ten cents" -> "10 cents"): read-amounts reads
  // them as cents, never as dollars.
  for (const m of [...buf.text.matchAll(new RegExp(String.raw`\b(${NUMBER_WORDS})(?=\s+cents?\b)`, 'g'))]) {
    const n = /^(?:a|one)$/.test(m[1]!) ? 1 : numberWordsValue(m[1]!);
    if (n === undefined) continue;
    put(m.index, m[1]!.length, String(n));
    ctx.assumptions.push(`"${m[1]} cent${n === 1 ? '' : 's'}" is read as $${formatCents(n)}.`);
  }
  // "a grand", "two grand", "1.5 grand": thousands of dollars ("a grand total" is no amount).
  const grand = new RegExp(
    String.raw`\b(a|one|${NUMBER_WORDS}|[0-9]+(?:\.[0-9]{1,3})?)\s+grand\b(?!\s+(?:total|prize|jury|piano|opening|tour|slam|finale?)\b)`,
    'g',
  );
  for (const m of [...buf.text.matchAll(grand)]) {
    const w = m[1]!;
    const n = /^[0-9]/.test(w)
      ? usdOfDigits(`${w}k`)
      : /^(?:a|one)$/.test(w)
        ? 1000
        : (numberWordsValue(w) ?? 0) * 1000;
    if (!(n > 0) || !isUsdAmount(n)) continue;
    const text = `$${formatUsd(n)}`;
    if (text.length > m[0].length) continue;
    put(m.index, m[0].length, text);
    ctx.assumptions.push(`"${m[0]}" is read as $${formatUsd(n)}.`);
  }
  // Money in words: "twenty-five bucks", "a couple hundred dollars", "more than forty".
  const words = new RegExp(
    String.raw`(\b${BOUND_WORDS}\s+)?\b(${NUMBER_WORDS})(\s*(?:dollars?|bucks?|usd)\b|\s+(?=(?:max(?:imum)?|tops)\b))?`,
    'g',
  );
  for (const m of [...buf.text.matchAll(words)]) {
    if (!m[1] && m[3] === undefined) continue;
    // "a couple hundred" alone reads 200; "a" / "one" alone after a bound is no amount.
    if (!/dollar|buck|usd/.test(m[3] ?? '') && /^(?:a|one|a couple(?: of)?|a few)$/.test(m[2]!)) continue;
    const n = numberWordsValue(m[2]!);
    if (n === undefined) continue;
    const at = m.index + (m[1]?.length ?? 0);
    const len = m[2]!.length + (m[3]?.length ?? 0);
    const text = `$${n}`;
    if (text.length > len) continue;
    put(at, len, text);
    ctx.assumptions.push(`"${m[2]}${(m[3] ?? '').trimEnd()}" is read as $${n}.`);
  }
}

/**
 * Text a reply or message says without quotes ("reply that we have received it", "answer them
 * that we'll check", "a reply saying we're looking into it"), made a quotation as if typed in
 * quotes: first letter capitalised, a full stop added when it has no end mark.
 */
export function quoteUnquoted(
  lower: string,
  raw: string,
  quotes: string[],
  assumptions: string[],
): { lower: string; raw: string } {
  const re =
    /\b(?:reply|respond|answer|tell|write|let (?:the |our |their |your )?[a-z]+ know|reply saying|a reply saying|message|saying|say)(?: (?:to )?(?:them|him|her|the customer|the employee|the vendor|the approver|customers))? (?:that|saying) (?!"q)([^".;!?,:]+?)(?=\s*(?:$|[.;!?,:]|\band (?:then )?(?:close|refund|tag|label|reply|pay|reimburse|approve|reject|notify|flag)\b|\bthen\b))/g;
  let l = lower;
  let r = raw;
  for (const m of [...lower.matchAll(re)]) {
    const at = m.index + m[0].length - m[1]!.length;
    const len = m[1]!.trimEnd().length;
    const said = r.slice(at, at + len).trim();
    if (said.length < 2) continue;
    const text = `${said[0]!.toUpperCase()}${said.slice(1)}${/[.!?]$/.test(said) ? '' : '.'}`;
    const mark = `"q${quotes.length}"`;
    if (mark.length > len) continue;
    quotes.push(text);
    assumptions.push(
      `The text ${JSON.stringify(said)} is read as the words to send: ${JSON.stringify(text)}.`,
    );
    l = l.slice(0, at) + mark.padEnd(len, ' ') + l.slice(at + len);
    r = r.slice(0, at) + mark.padEnd(len, ' ') + r.slice(at + len);
  }
  return { lower: l, raw: r };
}
