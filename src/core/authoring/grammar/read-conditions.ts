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
import { type MoneyBounds, readCurrency } from './read-amounts.ts';
import type { DraftStep } from './read-steps.ts';
import { cutOut, listOr, type RequestContext, type RequestText } from './request-context.ts';

/** What the request said a run is for, read before the actions. */
export interface SaidConditions {
  readonly currency: string | undefined;
  /** "that aren't in USD", "other than euros": the currency is a test that it is not that one. */
  readonly currencyNot?: boolean;
  readonly audience: string | undefined;
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
  if (audience !== undefined) {
    const cond = audienceCondition(audience, event, ctx);
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
 * GBP", "other than dollars"), cut out of the text; the currency itself is read as readCurrency
 * reads it. Undefined: none said so.
 */
export function readNotCurrency(buf: RequestText): string | undefined {
  const m =
    /\b(?:(?:that|which) )?(?:(?:aren't|arent|isn't|isnt|wasn't|weren't|are not|is not|not)(?: paid| billed| priced)? in|(?:in )?(?:anything|any currency) (?:but|other than|except)|other than|except(?: in)?) (usd|us dollars|dollars|eur|euros?|gbp|pounds|sterling|cad|aud|jpy|yen)\b/.exec(
      buf.text,
    );
  if (!m) return undefined;
  const code = readCurrency({ text: `in ${m[1]}` });
  if (code === undefined) return undefined;
  cutOut(buf, m);
  return code;
}

/** The customer group the request names ("vip", "gold"), cut out of the text. */
export function readAudience(buf: RequestText): string | undefined {
  const res = [
    /\b(?:for|from|to) (?:our |the )?([a-z][a-z0-9-]*) (?:customers|users|accounts|clients|members|subscribers|tier)\b(?: only)?/,
    /\b(?:only )?([a-z][a-z0-9-]*) (?:customers|clients|members|subscribers) only\b/,
    /\b(?:by|from) (?:a|an) ([a-z][a-z0-9-]*) (?:customer|user|client|member|subscriber)\b/,
    /\bif the (?:customer|user|account|client) is (?:a |an |on the )?([a-z][a-z0-9-]*)(?: customer| tier| plan)?\b/,
  ];
  const ignore = new Set([
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
  ]);
  for (const re of res) {
    const m = re.exec(buf.text);
    if (m && !ignore.has(m[1]!)) {
      cutOut(buf, m);
      return m[1]!;
    }
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

function audienceCondition(
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
  const tier = shape.payload.filter((p) => /tier|plan|segment|level|class/.test(p));
  if (flag.length === 0 && tier.length === 1) return `payload.${tier[0]} == ${JSON.stringify(group)}`;
  ctx.questions.push({
    about: 'triggers.when',
    question: `Which field of the ${shape.type} event says a customer is ${group}? It carries ${shape.payload.length ? listOr(shape.payload) : 'no known fields'}.`,
    ...(tier.length + flag.length > 1 ? { candidates: [...flag, ...tier] } : {}),
  });
  return undefined;
}
