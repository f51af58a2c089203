/**
 * A money bound said of the events, as a heading ("USD expenses under 75 → approve and reimburse",
 * "under $25: approve it and pay it"), bounds which events the workflow acts on, not only what a
 * run may spend, when a step acts before the money moves: the spend cap refuses a reimbursement of
 * $100, but the approval before it would already have been made. So the trigger also tests the
 * amount the money step moves (`payload.amount_usd < 75`), listed under Assumed. So does a bound
 * said of the one object of the actions the request starts with ("approve + reimburse travel
 * expenses under $300 automatically"). A bound said with
 * an action ("reply, then refund anyone under $50": the reply is for everyone) or where nothing
 * acts before the money moves ("refund requests up to $50: refund them") stays the cap alone, but
 * for a bound that leaves its own amount out ("under $50"): the cap lets $50 itself through, so
 * the trigger tests the amount too (which stops a run exactly where the cap would, but for $50).
 * In a request that makes a choice ("equipment under 300 -> approve and reimburse, otherwise check
 * the receipts"), which case the bound tests is not read: asked (`askBoundInChoice`), for the cap
 * alone would approve a $500 claim and only then refuse its reimbursement.
 */
import { formatUsd } from '../../money.ts';
import { payloadFieldOf } from '../arg-words.ts';
import { isActionVerb, lemmas } from '../request-words.ts';
import { enumValues } from './listed-values.ts';
import { type AmountFilter, LOWER_BOUND_JOINED } from './read-amounts.ts';
import { type DraftStep, type RequestContext, sampleValues } from './request-context.ts';
import { toolWords } from './tool-words.ts';
import { isEventWord, NEUTRAL, STAND_INS, saysHappened, singular } from './trigger-words.ts';

/** Words a heading names its events with, besides their noun: "all USD expenses", "when any new ones". */
const HEADING =
  /^(?:a|an|the|of|in|to|by|at|their|its|our|all|any|every|each|new|incoming|only|usd|eur|gbp|cad|aud|jpy|with|from|that|are|is|ones?|when|whenever|for|on|if)$/;

/** A field that names an amount: `amount_usd`, `total`, `refund_amount`. */
const AMOUNT_FIELD = /(?:^|_)(?:amount|total)(?:_|$)/;

/** A person an action is said to: "reimburse the employee for ...". */
const TO_PERSON =
  /^(?:the |a |an |our |their )?(?:employee|customer|seller|vendor|user|claimant|person|member|them|him|her)\b/;

/**
 * Whether the words before `at` only name the events (or there are none): the request's heading.
 * A value the trigger event's samples show ("travel", "USD") names them too, and so does a word
 * that says they happened ("when an expense is submitted under $50, approve it and reimburse it").
 */
function saidOfEvents(text: string, at: number, event: string | undefined, ctx: RequestContext): boolean {
  const shape = ctx.events?.find((e) => e.type === event);
  const values = sampleValues(shape ? [shape] : []);
  // ("with an amount under fifty": the words of its fields name them too.)
  for (const f of shape?.payload ?? []) for (const part of f.split('_')) values.add(part);
  // ("training expenses": a value a tool's list gives the field, beyond what the samples show.)
  if (shape)
    for (const f of shape.payload) for (const v of enumValues(f, shape, ctx)) values.add(v.toLowerCase());
  // (A bound said as a condition of its own, "if the amount is ...", is read where it stands.)
  const clause = /^\s*(?:if|only if|as long as|provided)\b/.test(text.slice(at));
  // ("order totals over $100 and under $500": a lower bound joined to this one bounds the same
  // amount, read as a condition of its own: it names no other thing.)
  const before = text.slice(0, at).replace(LOWER_BOUND_JOINED, ' ');
  return (before.match(/[a-z0-9'-]+/g) ?? []).every(
    (w) =>
      isEventWord(w, ctx) ||
      (saysHappened(w, ctx) && !clause) ||
      HEADING.test(w) ||
      NEUTRAL.has(w) ||
      STAND_INS.has(w) ||
      values.has(w) ||
      // ("meal expenses under $75" of `meals`: a value said in the singular or the plural.)
      [...values].some((v) => singular(v) === singular(w)),
  );
}

/**
 * Whether the request starts with actions whose object's words only name the events, up to `at`:
 * "approve + reimburse travel expenses under $300", "approve expense reports with an amount under
 * fifty, and reimburse those too" (never "reply, then refund anyone under $50", whose reply is for
 * everyone: the words before the bound say another action).
 */
function sharedObject(
  text: string,
  at: number,
  event: string | undefined,
  ctx: RequestContext,
  money: DraftStep,
): boolean {
  const a = leadingActions(text, at);
  if (a === undefined) return false;
  // ("reimburse the employee for meals up to $20 and approve the report first": the money's own
  // verb alone, said to a person, bounds what that person is paid, not the approval said after.
  // "reimburse expenses under $300 and approve them first" bounds the expenses.)
  const own = toolWords(money.tool);
  if (
    TO_PERSON.test(text.slice(a.end)) &&
    a.verbs.every((v) => lemmas(v).some((l) => own.name.has(l) || own.first.has(l)))
  )
    return false;
  return saidOfEvents(text.slice(a.end), at - a.end, event, ctx);
}

/** The action verbs the text starts with, before `at` ("approve + reimburse "): where they end. */
function leadingActions(text: string, at: number): { end: number; verbs: string[] } | undefined {
  const m = /^\s*[a-z]+(?:\s*(?:\+|&|\band\b|\bn\b)\s*[a-z]+)*\s+/.exec(text.slice(0, at));
  if (!m) return undefined;
  const verbs = m[0].split(/\s*(?:\+|&|\band\b|\bn\b)\s*|\s+/).filter(Boolean);
  return verbs.every((v) => isActionVerb(v)) ? { end: m[0].length, verbs } : undefined;
}

export function boundedEvents(
  text: string,
  filters: readonly AmountFilter[],
  caps: readonly number[],
  steps: readonly DraftStep[],
  event: string | undefined,
  ctx: RequestContext,
): string[] {
  const [filter] = filters;
  // One bound, and it is the cap (several are the cap's question already).
  if (filter === undefined || new Set(caps).size !== 1 || filters.some((f) => f.usd !== filter.usd))
    return [];
  const money = steps.find((s) => s.tool.cost?.fromArg !== undefined);
  // No step costs anything ("approve expenses under $50"): the bound can only say which events; as
  // a cap it would bound nothing, and every expense would be approved.
  if (money === undefined)
    return steps.length > 0 && steps.every((s) => s.tool.cost === undefined)
      ? noMoneyBound(text, filter, event, ctx, steps.length === 1)
      : [];
  // (With nothing acting before the money moves, the test stops a run where the cap would have,
  // whatever the bound was said with: it only leaves out the bound itself, for "under".)
  const ofEvents = () =>
    saidOfEvents(text, filter.at, event, ctx) || sharedObject(text, filter.at, event, ctx, money);
  const test = amountTest(filter, steps, event, ctx, ofEvents);
  return test === undefined ? [] : [test];
}

/**
 * The trigger's test of the amount the money step moves, for a bound of the whole workflow that
 * the spend cap alone would not keep (listed under Assumed): a step acting before the money moves
 * (the cap refuses a reimbursement of $100, but the approval before it would already have been
 * made), when `ofEvents` says the bound is the events' and not that action's; or "under $50",
 * which leaves $50 itself out while a $50 cap lets it through. Undefined: the cap is enough, or
 * the money step's amount is not a field of the event.
 */
export function amountTest(
  bound: { op: '<' | '<='; usd: number },
  steps: readonly DraftStep[],
  event: string | undefined,
  ctx: RequestContext,
  ofEvents: () => boolean,
): string | undefined {
  const at = steps.findIndex((s) => s.tool.cost?.fromArg !== undefined);
  const money = steps[at];
  if (money === undefined) return undefined;
  const field = payloadFieldOf(money.step.args[money.tool.cost!.fromArg!]);
  if (field === undefined) return undefined;
  const before = steps.slice(0, at).filter((s) => s.tool.effect !== 'read');
  const usd = formatUsd(bound.usd);
  if (before.length > 0 && ofEvents()) {
    ctx.assumptions.push(
      `$${usd} bounds which ${event ?? 'trigger'} events the workflow acts on, not only what it spends: ${before.map((s) => s.tool.name).join(', ')} ${before.length === 1 ? 'acts' : 'act'} before ${money.tool.name} moves the money, so the trigger tests ${field} ${bound.op} ${bound.usd} too.`,
    );
    return `payload.${field} ${bound.op} ${bound.usd}`;
  }
  if (before.length > 0 || bound.op !== '<') return undefined;
  ctx.assumptions.push(
    `"under $${usd}" leaves $${usd} itself out, which the spend cap lets through: the trigger tests ${field} < ${bound.usd} too.`,
  );
  return `payload.${field} < ${bound.usd}`;
}

/**
 * A bound said of the events of a draft that moves no money: a test of the trigger event's one
 * amount field (`payload.amount_usd < 50`), when the words before it are the events, or an action
 * and the events ("approve expenses under $50"), or the draft's one step is what an "if" bounds
 * ("approve it with the note "ok" if it's below $250": no run, or a run that skips its one step,
 * come to the same); a question otherwise (said of something else, or the event has no such
 * field, or several): as a cap it would bound nothing.
 */
function noMoneyBound(
  text: string,
  filter: { op: '<' | '<='; usd: number; at: number },
  event: string | undefined,
  ctx: RequestContext,
  oneStep: boolean,
): string[] {
  const a = leadingActions(text, filter.at);
  const shape = ctx.events?.find((e) => e.type === event);
  const fields = (shape?.payload ?? []).filter((f) => AMOUNT_FIELD.test(f) || /_usd$/.test(f));
  // (The one step's "if" is the amount's only where the field says it is one: an "equipment
  // budget" is not what "if it's under $2,000" is said of.)
  const ofEvents =
    (oneStep &&
      /^\s*(?:if|only if|as long as|provided)\b/.test(text.slice(filter.at)) &&
      fields.length === 1 &&
      AMOUNT_FIELD.test(fields[0]!)) ||
    saidOfEvents(text, filter.at, event, ctx) ||
    (a !== undefined && saidOfEvents(text.slice(a.end), filter.at - a.end, event, ctx));
  if (!ofEvents || fields.length !== 1) {
    ctx.questions.push({
      about: 'triggers.when',
      question: `Which field of the ${event ?? 'trigger'} event holds the amount "$${formatUsd(filter.usd)}" bounds? No step moves money, so it can only say which events the workflow acts on.${shape?.payload.length ? ` It carries ${shape.payload.join(', ')}.` : ''}`,
    });
    return [];
  }
  ctx.assumptions.push(
    `$${formatUsd(filter.usd)} says which ${event} events the workflow acts on: no step moves money, so the trigger tests ${fields[0]} ${filter.op} ${filter.usd}.`,
  );
  return [`payload.${fields[0]} ${filter.op} ${filter.usd}`];
}

/**
 * In a choice, a bound said in a case's heading ("equipment under 300 -> approve and reimburse"):
 * no action word between the sentence's start and the bound, and a step acting before the money
 * moves. Which case it tests is not read: a question instead of the cap alone. A choice that
 * tests the bound itself (`flow`: "up to 50 dollars approve + pay, anything over that just
 * approve it") has read it.
 */
export function askBoundInChoice(
  text: string,
  filters: readonly AmountFilter[],
  caps: readonly number[],
  steps: readonly DraftStep[],
  flow: string,
  ctx: RequestContext,
): void {
  const [filter] = filters;
  if (filter === undefined || new Set(caps).size !== 1) return;
  if (flow.includes(`${filter.op} ${filter.usd}"`)) return;
  const heading = (filter.heading ?? text.slice(0, filter.at)).split(/[.;!?]\s/).at(-1) ?? '';
  const words = heading.match(/[a-z'-]+/g) ?? [];
  if (words.some((w) => isActionVerb(w))) return;
  // Read in a branch's words, a tool's own verb before the bound says what it bounds ("anything
  // shorter, renew it up to $200").
  if (
    filter.heading !== undefined &&
    words.some((w) => lemmas(w).some((l) => ctx.tools.some((t) => toolWords(t).first.has(l))))
  )
    return;
  const at = steps.findIndex((s) => s.tool.cost?.fromArg !== undefined);
  const acting = at < 0 ? undefined : steps.slice(0, at).find((s) => s.tool.effect !== 'read');
  if (acting === undefined) return;
  ctx.questions.push({
    about: 'limits.maxCostUsd',
    question: `Which case does $${formatUsd(filter.usd)} bound? ${acting.tool.name} acts before ${steps[at]!.tool.name} moves the money, so as the spend cap alone it would act on larger amounts and only then refuse to pay. Say the bound with the case it is for ("if it is ... and under $${formatUsd(filter.usd)}, ...").`,
  });
}
