/**
 * The amounts part of the grammar: money and currency. Upper bounds ("under $50", "no more than
 * $200 a run", "unless it's over $2,000", "never refund more than $50") become spend caps; lower
 * bounds ("over $5,000", "at least $10") become trigger conditions on the event's amount field
 * (read-conditions.ts); "in USD" becomes a condition on its currency field. Each reader cuts what
 * it read out of the text. Amounts are read in dollars with at most two decimals.
 *
 * New money phrasings (ranges, per-item caps, other currencies) belong here; a phrase these
 * readers leave in a clause is asked about by the tool mapper, never dropped.
 */
import { cutOut, type RequestText } from './request-context.ts';

/** The money bounds a request names: caps (the spend cap) and lower bounds (conditions). */
export interface MoneyBounds {
  caps: number[];
  lowerBounds: { op: '>' | '>='; usd: number }[];
  /**
   * The caps said as which amounts ("expenses under 75", "up to $60", "<$15", "$50 or less"), not
   * only as what a run may spend ("cap $90", "max 40"): where a step acts before the money moves,
   * they bound which events the workflow acts on too (bounded-events.ts).
   */
  filters: AmountFilter[];
  /** Bounds read as a step's condition ("if it's under $40, refund it"), beside the cap they make. */
  stepBounds: Pick<AmountFilter, 'op' | 'usd'>[];
  /** Upper bounds said after a negation in their clause ("never pay out under $50"): asked. */
  against: string[];
}

/** A cap said as which amounts: where in the text, or, read in a branch's own words, what heads it there. */
export interface AmountFilter {
  readonly op: '<' | '<=';
  readonly usd: number;
  readonly at: number;
  /** Read in a branch's text ("everything else under 150 -> ..."): its words before the bound. */
  readonly heading?: string;
}

/** The comparison a cap's words make of the amount, when they say which amounts (see `filters`). */
function filterOp(said: string): '<' | '<=' | undefined {
  if (/(?:^|\b)(?:under|below|less than|smaller than|beneath)\s|(?:^|\s)<(?!=)/.test(said)) return '<';
  if (
    /\b(?:up to|at most|no more than|not more than|not over|not above|never over|never above|not exceeding|or less|or under|or below)\b|<=|≤/.test(
      said,
    )
  )
    return '<=';
  return undefined;
}

const NUMBER = String.raw`(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]{1,2})?k?`;
/** Whole cents: "10 cents", "5c", "5¢" (never a fraction of a cent). */
const CENTS = String.raw`(?<![0-9.,])([0-9]{1,9})(?:\s*(?:cents?|¢)|c)(?![a-z0-9])`;
/** "$40", "USD 40", "40 USD", "40 dollars", "40 bucks", "40$"; "10 cents", "5c". */
const AMOUNT = String.raw`(?:(?:\$|\busd)\s?(${NUMBER})|(${NUMBER})\s?(?:dollars?|usd|bucks?|\$)|${CENTS})`;
/** Units after a bare number that make it no dollar amount ("3 steps", "10 cents", "within 2h", "10 seats"). */
const NOT_DOLLARS =
  'steps?|%|percent|days?|hours?|minutes?|weeks?|hrs?|h|d|mins?|wks?|times|items?|tickets?|reports?|invoices?|requests?|cents?|c|¢|(?!dollars|bucks|grand)[a-z]+[^s\\W]s';
/** After a bound word a bare number is dollars too ("no refunds above 75"), unless a unit follows. */
const BOUND_AMOUNT = String.raw`(?:${AMOUNT}|(${NUMBER})(?![0-9]|[.,][0-9]|\s*(?:${NOT_DOLLARS})(?![a-z])))`;
/** The words of a lower bound ("over $5,000", "at least 10"). */
const LOWER_WORDS = 'over|above|more than|greater than|larger than|bigger than|at least|exceeding';
/**
 * A lower bound joined to an upper bound said right after it ("over $100 and ", "at least 20
 * dollars but "): the two bound one amount (bounded-events.ts).
 */
export const LOWER_BOUND_JOINED = new RegExp(
  String.raw`\b(?:${LOWER_WORDS})\s+${BOUND_AMOUNT}\s+(?:and|but)\s*$`,
);
/** "if it's under $30": the condition words before a money bound belong to it. */
/** Whether a lower bound's words or sign ("at least", ">=", "≥") keep the amount itself. */
const atLeast = (m: RegExpExecArray) => m[1] === 'at least' || m[2] === '>=' || m[2] === '≥';

const IF_IT = `(?:(?:only |but only )?(?:if|as long as|so long as|provided) (?:it's |its |it is |they're |they are |the (?:amount|refund|total|invoice|sum|payment) is |that's |that is )?)?`;

/**
 * Dollars as written ("1,500", "12.5", "2.5k") -> USD, computed in integer cents from the digits:
 * never a product of binary fractions ("2.5k" is 250000 cents, "0.1" is 10), so a cap is the
 * decimal the person typed.
 */
export function usdOfDigits(written: string): number {
  const t = written.replace(/,/g, '');
  const k = t.endsWith('k');
  const [whole = '0', frac = ''] = (k ? t.slice(0, -1) : t).split('.');
  const cents = Number(whole) * 100 + Number(frac.padEnd(2, '0').slice(0, 2));
  return ((k ? cents * 1000 : cents) + 0) / 100;
}

/** Whole cents as written ("10", "5") -> USD: 10 -> 0.1, exactly the double nearest the decimal. */
export function usdOfCents(written: string): number {
  return Number(written) / 100;
}

/**
 * "a run", "per go", and "per report", "each invoice": the thing one run is about, so the bound is
 * the run's (never "per customer" or "per day", which span runs).
 */
const PER_RUN = String.raw`(?:\s+(?:a|per|each|in a|for (?:a|each|one))\s+(?:run|workflow run|go|time|report|invoice|claim|refund|request|ticket|expense|submission)s?\b)?`;

export function readMoney(buf: RequestText): MoneyBounds {
  const out: MoneyBounds = { caps: [], lowerBounds: [], filters: [], stepBounds: [], against: [] };
  const cap = (usd: number, m: RegExpExecArray) => {
    out.caps.push(usd);
    // ("at or under $20,000", "equal to or below": the words before the bound keep the amount.)
    const op = /\b(?:at|equal to|equals?) or\s*$/.test(buf.text.slice(0, m.index)) ? '<=' : filterOp(m[0]);
    if (op) out.filters.push({ op, usd, at: m.index });
  };
  // An AMOUNT's groups from `at`: dollars after "$", dollars before a unit, whole cents; then a
  // BOUND_AMOUNT's bare number.
  const amount = (m: RegExpExecArray, at: number) => {
    if (m[at + 2] !== undefined) return usdOfCents(m[at + 2]!);
    return usdOfDigits(m[at] ?? m[at + 1] ?? m[at + 3] ?? '0');
  };
  const upper = new RegExp(
    String.raw`\b${IF_IT}(?:under|below|less than|up to|at most|no more than|not more than|not over|never more than|never over|max(?:imum)?(?: of)?|capped at|a cap of|cap(?: it| runs?| spending| the spend| refunds?)?(?: at| of| to|:)?|limit(?: it| runs?| spending| refunds?)?(?: to| of| at)?|budget(?: of)?|(?:a )?ceiling(?: of)?|spend(?:ing)? (?:at most|no more than|up to|under|less than)|(?:don't|do not|never) spend more than|within|smaller than|beneath|not above|not over|limit is|no(?: [a-z]+)? (?:above|over|more than)|nothing (?:above|over|more than|beyond))\s+${BOUND_AMOUNT}${PER_RUN}(?:\s+in total)?`,
    'g',
  );
  // "<$15", "<= 15": the sign is an upper bound too.
  const sign = new RegExp(String.raw`${IF_IT}(?:<=?|≤)\s*${BOUND_AMOUNT}`, 'g');
  for (let m = sign.exec(buf.text); m; m = sign.exec(buf.text)) {
    cap(amount(m, 1), m);
    cutOut(buf, m);
  }
  const unless = new RegExp(
    String.raw`\bunless (?:it's |its |it is |they're |theyre |they are |the (?:amount|refund|total|invoice|sum|payment) is )?(?:over|above|more than|greater than|bigger than|larger than)\s+${BOUND_AMOUNT}`,
    'g',
  );
  for (let m = unless.exec(buf.text); m; m = unless.exec(buf.text)) {
    // "close it unless it's over 500": which amounts too (where no step moves money, the only reading).
    const usd = amount(m, 1);
    out.caps.push(usd);
    out.filters.push({ op: '<=', usd, at: m.index });
    cutOut(buf, m);
  }
  // "never refund more than $50 (a run)": a negated bound with its verb between is a cap, never a
  // condition that the amount be over it (the opposite); the verb goes with it, as the action is
  // named elsewhere ("refund them, but never refund more than $50").
  const negated = new RegExp(
    String.raw`\b(?:never|don't|dont|do not|not|no one should|nobody should)\s+(?:ever\s+)?(?:[a-z']+\s+){1,3}?(?:more than|over|above|in excess of|greater than|beyond)\s+${BOUND_AMOUNT}${PER_RUN}(?:\s+in total)?`,
    'g',
  );
  for (let m = negated.exec(buf.text); m; m = negated.exec(buf.text)) {
    out.caps.push(amount(m, 1));
    cutOut(buf, m);
  }
  // "$50 or less", "10 cents max", "2.5k tops", "a 5 cent cap", "a $200 limit": a bare number too
  // before max / tops.
  const orLess = new RegExp(
    String.raw`(?:${AMOUNT}\s+(?:(?:spend(?:ing)? )?(?:cap|limit|budget|ceiling)\b)|(?:${AMOUNT}|(?<![0-9.,$])(${NUMBER}))\s+(?:or (?:less|under|below)|max(?:imum)?|tops|at (?:the )?most)\b)`,
    'g',
  );
  const lowerRe = new RegExp(String.raw`(?:\b${IF_IT}(${LOWER_WORDS})\s+|(?<![-=])(>=?|≥)\s*)${AMOUNT}`, 'g');
  for (let m = upper.exec(buf.text); m; m = upper.exec(buf.text)) {
    // ("never pay out under $50", "refund it unless it's under $50", "don't tag tickets under $20":
    // a negation before the bound in its clause turns it around, or says something else of those
    // amounts: neither a cap nor a test, asked.)
    // ("don't pay it out (max $2000) unless ..." is a cap all the same: only "under" turns around.)
    if (filterOp(m[0]) === '<' && NEGATED_BEFORE.test(buf.text.slice(0, m.index)))
      out.against.push(m[0].trim());
    else cap(amount(m, 1), m);
    cutOut(buf, m);
  }
  for (let m = orLess.exec(buf.text); m; m = orLess.exec(buf.text)) {
    // Groups 1-3: an amount before "cap"; 4-7: before "max" (or a bare number).
    cap((m[1] ?? m[2] ?? m[3]) ? amount(m, 1) : amount(m, 4), m);
    cutOut(buf, m);
  }
  for (let m = lowerRe.exec(buf.text); m; m = lowerRe.exec(buf.text)) {
    out.lowerBounds.push({ op: atLeast(m) ? '>=' : '>', usd: amount(m, 3) });
    cutOut(buf, m);
  }
  // "refund req over 300 -> ...": a bare number after a lower bound, with nothing after it that
  // could be what it counts ("more than 5 replies" is no amount).
  const bareLower = new RegExp(
    String.raw`(?:\b${IF_IT}(${LOWER_WORDS})\s+|(?<![-=])(>=?|≥)\s*)(${NUMBER})(?=\s*(?:$|[,.;:!?)]|->|→|-\s|\b(?:then|and|but)\b))`,
    'g',
  );
  for (let m = bareLower.exec(buf.text); m; m = bareLower.exec(buf.text)) {
    out.lowerBounds.push({ op: atLeast(m) ? '>=' : '>', usd: usdOfDigits(m[3]!) });
    cutOut(buf, m);
  }
  return out;
}

/** Text that ends in a clause with one of `words` earlier in it. */
const negatedBy = (words: string) => new RegExp(String.raw`\b(?:${words})\b[^.;,!?:]*$`);
const NEGATIONS = 'not|never|unless|except|excluding|no';
const SAID_AGAINST = negatedBy(NEGATIONS);
/** The same, with the verbs' negations too: "don't hold payouts", "never pay out", "unless it's". */
const NEGATED_BEFORE = negatedBy(`${NEGATIONS}|nothing|don'?t|do not|doesn'?t|does not|won'?t|shouldn'?t`);

/** The questions upper bounds said after a negation ask (`MoneyBounds.against`). */
export function againstQuestions(money: MoneyBounds): { about: string; question: string }[] {
  return money.against.map((said) => ({
    about: 'limits.maxCostUsd',
    question: `The request says "${said}" after a "not", "never" or "unless": which amounts should the workflow act on there, and how much may one run spend?`,
  }));
}

/** Whether a "not", "never", "unless" or "except" earlier in its clause turns what is said at `at` around. */
export const saidAgainst = (text: string, at: number): boolean => SAID_AGAINST.test(text.slice(0, at));

export function readCurrency(buf: RequestText): string | undefined {
  // "refunds in USD" is the currency's; "asks for a refund in euros" keeps its noun for the trigger.
  // ("but not if the invoice is in EUR" is another currency's: left for the readers of a "not".)
  const re =
    /\b(?:(?:only |paid |amounts? |(?<!\b(?:a|an|the|for|their|his|her|its) )refunds? |charged )?in|in the currency|currency(?: is)?)\s+(usd|us dollars|dollars|eur|euros?|gbp|pounds|sterling|cad|aud|jpy|yen)\b/;
  const m = re.exec(buf.text);
  if (!m || saidAgainst(buf.text, m.index)) return undefined;
  cutOut(buf, m);
  const w = m[1]!;
  const codes: Record<string, string> = {
    usd: 'USD',
    'us dollars': 'USD',
    dollars: 'USD',
    eur: 'EUR',
    euro: 'EUR',
    euros: 'EUR',
    gbp: 'GBP',
    pounds: 'GBP',
    sterling: 'GBP',
    cad: 'CAD',
    aud: 'AUD',
    jpy: 'JPY',
    yen: 'JPY',
  };
  return codes[w];
}
