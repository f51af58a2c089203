/**
 * The conditions part of the grammar: who and what a run is for, as the trigger's `when`. Reads a
 * customer group ("for VIP customers", "premium clients only", "if the customer is gold") out of
 * the text, and turns it, the currency and the money lower bounds (read-amounts.ts) into tests of
 * the trigger event's payload fields: `payload.currency == "USD"`, `payload.vip == true`,
 * `payload.amount_usd > 5000`. The field is the event's one field that fits; none, or several, is a
 * question naming the fields the event carries.
 *
 * New conditions (payload fields named in words, comparisons other than money) belong here, with a
 * reader that cuts its phrase out of the text and a test built from the event's fields.
 */

import { isActionVerb, lemmas } from '../request-words.ts';
import { flagOf } from './flag-fields.ts';
import { type MoneyBounds, readCurrency } from './read-amounts.ts';
import { cutOut, type DraftStep, listOr, type RequestContext, type RequestText } from './request-context.ts';

/** What the request said a run is for, read before the actions. */
export interface SaidConditions {
  readonly currency: string | undefined;
  /** "that aren't in USD", "other than euros": the currency is a test that it is not that one. */
  readonly currencyNot?: boolean;
  /** The customer groups said ("silver or gold"): a run is for any one of them. */
  readonly audience: readonly string[] | undefined;
  readonly lowerBounds: MoneyBounds['lowerBounds'];
}

/** The trigger's `when` tests, in a fixed order: currency, customer group, lower bounds. */
export function triggerConditions(
  event: string | undefined,
  said: SaidConditions,
  steps: readonly DraftStep[],
  ctx: RequestContext,
): string[] {
  const when: string[] = [];
  const { currency, audience } = said;
  if (currency !== undefined) {
    const f = payloadField(event, /currenc/, 'currency', 'the currency', ctx);
    if (f) when.push(`payload.${f} ${said.currencyNot ? '!=' : '=='} ${JSON.stringify(currency)}`);
  }
  for (const group of audience ?? []) {
    const cond = audienceCondition(group, event, ctx);
    if (cond) when.push(cond);
  }
  const moneyTools = steps.filter((s) => s.tool.cost?.fromArg !== undefined);
  for (const lower of said.lowerBounds) {
    const f = payloadField(
      event,
      /amount|total|value|price|cost|sum/,
      moneyTools[0]?.tool.cost?.fromArg ?? 'amount',
      'the amount',
      ctx,
    );
    if (f) when.push(`payload.${f} ${lower.op} ${lower.usd}`);
  }
  return when;
}

/**
 * A currency said under a negation ("invoices that aren't in USD", "not in euros", "in anything but
 * GBP", "other than dollars", "non-USD"), cut out of the text; the currency itself is read as readCurrency
 * reads it. Undefined: none said so.
 */
export function readNotCurrency(buf: RequestText): string | undefined {
  const m =
    /\b(?:(?:that|which) )?(?:(?:aren't|arent|isn't|isnt|wasn't|weren't|are not|is not|not)(?: paid| billed| priced)? in|(?:in )?(?:anything|any currency) (?:but|other than|except)|other than|except(?: in)?) (usd|us dollars|dollars|eur|euros?|gbp|pounds|sterling|cad|aud|jpy|yen)\b/.exec(
      buf.text,
    ) ??
    // "non-USD invoices", "non usd": the code turned around.
    /\bnon[- ]?(usd|eur|euros?|gbp|cad|aud|jpy)\b/.exec(buf.text);
  if (!m) return undefined;
  const code = readCurrency({ text: `in ${m[1]}` });
  if (code === undefined) return undefined;
  cutOut(buf, m);
  return code;
}

/** Words that are never a customer group: "all customers", "new users", "those members". */
const NOT_A_GROUP = new Set([
  'all',
  'any',
  'our',
  'every',
  'each',
  'the',
  'new',
  'existing',
  'those',
  'these',
  'such',
  'other',
  'some',
  'many',
  'most',
  'more',
  'no',
  'and',
  'or',
]);

/** Words of size or rank ("biggest", "top", "key"): what a customer is worth, never a plan's name. */
const RANKING =
  /^(?:[a-z]{3,}est|top|big|bigger|large|larger|huge|major|key|important|valuable|high-value|strategic|loyal|best|worst|small|smaller|tiny|minor)$/;

/** One group word, or several joined ("silver or gold", "gold, platinum and diamond"). */
const GROUPS = `([a-z][a-z0-9-]*(?:(?:, | or |, or | and |, and |/| & )[a-z][a-z0-9-]*){0,3})`;
const PEOPLE = 'customers|users|accounts|clients|members|subscribers';

/**
 * The customer groups the request names ("vip", "silver or gold"), cut out of the text: any one of
 * them is the group a run is for. Said at the start of a clause ("gold customers asking for a
 * refund"), a group is read only when none of its words names one of the catalog's tools or
 * events ("refund customers" is an action).
 */
export function readAudience(buf: RequestText, ctx?: RequestContext): string[] | undefined {
  const res = [
    new RegExp(
      String.raw`\b(?:for|from|to|by) (?:our |the |a |an )?${GROUPS} (?:${PEOPLE}|customer|user|client|member|subscriber|tier)\b(?: only)?`,
    ),
    // "tickets from the pro plan", "accounts on the free plan" (never "move them to the pro plan").
    // ("unless the customer is on the free plan" is a test the field readers make, negated.)
    new RegExp(
      String.raw`(?<!\b(?:is|are|isn't|aren't|isnt|arent|not|was|were|be)\s)\b(?:for|from|on|in) (?:our |the |a )?${GROUPS} plans?\b(?: only)?`,
    ),
    new RegExp(String.raw`\b(?:only )?${GROUPS} (?:customers|clients|members|subscribers) only\b`),
    /\b(?:by|from) (?:a|an) ([a-z][a-z0-9-]*) (?:customer|user|client|member|subscriber)\b/,
    /\bif the (?:customer|user|account|client) is (?:a |an |on the )?([a-z][a-z0-9-]*)(?: customer| tier| plan)?\b/,
    new RegExp(String.raw`(?:^|[.;:!?]\s*|->\s*|\bonly )${GROUPS} (?:${PEOPLE})\b`),
  ];
  const named = (w: string) =>
    ctx !== undefined &&
    (ctx.tools.some((t) => t.name.split(/[_.-]/).some((p) => lemmas(p).some((l) => lemmas(w).includes(l)))) ||
      (ctx.events ?? []).some((e) =>
        e.type.split(/[_.-]/).some((p) => lemmas(p).some((l) => lemmas(w).includes(l))),
      ));
  for (const [i, re] of res.entries()) {
    const m = re.exec(buf.text);
    if (!m) continue;
    const groups = m[1]!.split(/, or |, and |, | or | and |\/| & /).filter((g) => g !== '');
    if (groups.some((g) => NOT_A_GROUP.has(g))) continue;
    // ("Give accounts a $20 credit": a verb at a clause's start is the action, never a group;
    // "escalated customers" are a group, said with a verb's participle.)
    if (i === res.length - 1 && groups.some((g) => named(g) || (isActionVerb(g) && !/(?:ed|ing)$/.test(g))))
      continue;
    // At a clause's start only the group and its noun go: the clause's boundary stays.
    const at = i === res.length - 1 ? m[0].lastIndexOf(m[1]!) : 0;
    cutOut(buf, { index: m.index + at, 0: m[0].slice(at) });
    return groups;
  }
  return undefined;
}

function payloadField(
  event: string | undefined,
  re: RegExp,
  fallback: string,
  what: string,
  ctx: RequestContext,
): string | undefined {
  if (!ctx.events) return fallback;
  const shape = ctx.events.find((e) => e.type === event);
  if (!shape) return undefined; // the trigger is a question already
  const f = shape.payload.filter((p) => re.test(p));
  if (f.length === 1) return f[0];
  ctx.questions.push({
    about: 'triggers.when',
    question:
      f.length === 0
        ? `Which field of the ${shape.type} event holds ${what}? It carries ${shape.payload.length ? listOr(shape.payload) : 'no known fields'}.`
        : `Which field of the ${shape.type} event holds ${what}: ${listOr(f)}?`,
    ...(f.length ? { candidates: f } : {}),
  });
  return undefined;
}

/** Fields that sort customers: their plan or tier, loyalty, region or country. */
const SORTS_CUSTOMERS =
  /tier|plan|segment|level|class|loyalty|region|country|market|membership|program|cohort/;

/** Words that say where customers are: a region or a country's adjective, never a plan. */
const PLACES =
  /^(?:eu|us|usa|uk|emea|apac|latam|europe|european|american|canadian|british|german|french|australian|domestic|international|overseas|foreign|local|uk-based|us-based|eu-based)$/;

export function audienceCondition(
  group: string,
  event: string | undefined,
  ctx: RequestContext,
): string | undefined {
  if (!ctx.events) {
    ctx.questions.push({
      about: 'triggers.when',
      question: `Which event field says a customer is ${group}?`,
    });
    return undefined;
  }
  const shape = ctx.events.find((e) => e.type === event);
  if (!shape) return undefined;
  const flag = shape.payload.filter((p) => p === group || p === `is_${group}` || p === `${group}_customer`);
  if (flag.length === 1) return `payload.${flag[0]} == true`;
  // "verified customers": the yes/no field the word ends (identity_verified), as flag-fields.ts reads it.
  const named = flag.length === 0 ? flagOf(group, shape) : undefined;
  if (named) {
    ctx.assumptions.push(
      `"${group}" customers are read as ${shape.type}'s ${named.field} being ${!named.negated}.`,
    );
    return `payload.${named.field} == ${!named.negated}`;
  }
  // "gold customers" of an event whose samples show loyalty "gold": that field, whatever its name.
  // (Of a field that sorts customers: "standard plan sellers" is no payout's `speed` "standard".)
  const byValue = shape.payload
    .filter((p) => SORTS_CUSTOMERS.test(p))
    .flatMap((p) =>
      (shape.values?.[p] ?? []).filter((v) => v.toLowerCase() === group).map((v) => ({ p, v })),
    );
  if (flag.length === 0 && byValue.length === 1)
    return `payload.${byValue[0]!.p} == ${JSON.stringify(byValue[0]!.v)}`;
  // "EU customers", "domestic customers": where they are, which no plan's name says (the
  // country a field holds is one of many such).
  if (flag.length === 0 && PLACES.test(group)) {
    const shown = /^(?:eu|us|usa|uk|emea|apac|latam)$/.test(group) ? group.toUpperCase() : group;
    ctx.questions.push({
      about: 'triggers.when',
      question: `"${shown}" says where customers are. Which test of the ${shape.type} event says a customer is ${shown}? It carries ${shape.payload.length ? listOr(shape.payload) : 'no known fields'}.`,
    });
    return undefined;
  }
  const tier = shape.payload.filter((p) => /tier|plan|segment|level|class/.test(p));
  if (flag.length === 0 && tier.length === 1) {
    const known = shape.values?.[tier[0]!] ?? [];
    // "our biggest accounts", "top customers": a size or a rank, which no plan's name says.
    if (!known.includes(group) && RANKING.test(group)) {
      ctx.questions.push({
        about: 'triggers.when',
        question: `No field of the ${shape.type} event says which customers are "${group}"; its ${tier[0]} is ${known.length ? `one of ${listOr(known)}` : 'a name, not a size'}. Which test is meant?`,
        ...(known.length
          ? { candidates: known.map((v) => `payload.${tier[0]} == ${JSON.stringify(v)}`) }
          : {}),
      });
      return undefined;
    }
    if (!known.includes(group))
      ctx.assumptions.push(`"${group}" customers are read as ${shape.type}'s ${tier[0]} "${group}".`);
    return `payload.${tier[0]} == ${JSON.stringify(group)}`;
  }
  ctx.questions.push({
    about: 'triggers.when',
    question: `Which field of the ${shape.type} event says a customer is ${group}? It carries ${shape.payload.length ? listOr(shape.payload) : 'no known fields'}.`,
    ...(tier.length + flag.length > 1 ? { candidates: [...flag, ...tier] } : {}),
  });
  return undefined;
}
