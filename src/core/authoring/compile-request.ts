/**
 * The offline compiler: a request in plain words ("when a refund is requested, reply, then refund
 * anyone under $50") -> a DRAFT workflow spec over a tool catalog, plus the questions it could not
 * answer itself. The grammar is docs/authoring.md's; this entry composes its readers, one file per
 * part in grammar/ over a shared context (grammar/request-context.ts):
 *
 *   normalise-request  quotes kept aside, phrases read as one word
 *   read-limits        the step limit, the spend cap     read-amounts     money bounds, currency
 *   read-arg-phrases   "summary as the title", "message 'x'", "..., sev2": values for arguments
 *   read-conditions    customer group, the `when` tests   read-trigger     the event that starts it
 *   read-clauses       action clauses, in run order       read-steps       one step per clause, approvals
 *   map-tool           the tool a clause names            fill-args        each argument's value
 *   read-coverage      in a draft that moves money, every word is read, or asked about
 *
 * Limits, conditions and the trigger are read out of the whole text first; what is left are the
 * actions. Pure and deterministic: the same request and catalog always give the same result. It
 * never names a tool that is not in the catalog and never guesses: whatever is ambiguous or
 * unmapped is a question. It does not validate; `draftSpec` (draft-spec.ts) does, with the spec's
 * own checks.
 */
import { hashOf } from '../canonical/index.ts';
import type { ChooseStepSpec, FlowStep } from '../spec/flow-steps.ts';
import { isSpecId } from '../spec/validate-spec.ts';
import type { TriggerSpec, WorkflowSpec } from '../spec/workflow-spec.ts';
import type { CompiledRequest, CompileOptions, DraftCatalog } from './compiled-request.ts';
import { stepConditionWords } from './condition-words.ts';
import { fillArgs } from './grammar/fill-args.ts';
import { placeImpliedReads } from './grammar/implied-reads.ts';
import { normaliseRequest, readPhrases } from './grammar/normalise-request.ts';
import type { MoneyBounds } from './grammar/read-amounts.ts';
import { readCurrency, readMoney } from './grammar/read-amounts.ts';
import { readArgPhrases } from './grammar/read-arg-phrases.ts';
import { asideTests, readAsides } from './grammar/read-asides.ts';
import { splitClauses } from './grammar/read-clauses.ts';
import { readAudience, readNotCurrency, triggerConditions } from './grammar/read-conditions.ts';
import { checkCoverage } from './grammar/read-coverage.ts';
import { alternatives, fieldForValue, readFieldTests, readQualifiers } from './grammar/read-field-tests.ts';
import { applyRestated, readFiller, readRestated } from './grammar/read-filler.ts';
import { checkStepLimit, readStepLimit, spendCap } from './grammar/read-limits.ts';
import { readMessageTexts } from './grammar/read-message-text.ts';
import { readMoneyPhrases, readRestatedBounds } from './grammar/read-money-phrases.ts';
import { numberConditions, readNumberTests } from './grammar/read-number-tests.ts';
import { type Otherwise, readOtherwise } from './grammar/read-otherwise.ts';
import { readRoutes } from './grammar/read-routes.ts';
import { readNoSignoff, readSignoffAsks } from './grammar/read-signoff.ts';
import { quoteUnquoted, readSpelling } from './grammar/read-spelling.ts';
import { type DraftStep, readSteps } from './grammar/read-steps.ts';
import { readTrigger } from './grammar/read-trigger.ts';
import { readCurrencyBefore } from './grammar/read-values.ts';
import {
  contextFor,
  dedupeQuestions,
  listOr,
  type RequestContext,
  type RequestText,
} from './grammar/request-context.ts';
import { isNounOf } from './grammar/trigger-words.ts';

/** Tests joined with "and"; alternatives said alone lose their parentheses ("a or b"). */
function joinTests(tests: readonly string[]): string {
  const only = tests.length === 1 ? tests[0]! : undefined;
  return only?.startsWith('(') && only.endsWith(')') && !only.slice(1, -1).includes('(')
    ? only.slice(1, -1)
    : tests.join(' and ');
}

/** At most this many characters of a request are read. */
export const MAX_REQUEST_LENGTH = 2000;

/** Compiles `request` against `catalog`. Deterministic; never throws for any string. */
export function compileRequest(
  request: string,
  catalog: DraftCatalog,
  options: CompileOptions = {},
): CompiledRequest {
  const ctx = contextFor(catalog);
  const read = normaliseRequest(request.slice(0, MAX_REQUEST_LENGTH), ctx.quotes);
  const texts = readMessageTexts(read.lower, read.raw, ctx);
  const unquoted = quoteUnquoted(texts.lower, texts.raw, ctx.quotes, ctx.assumptions);
  const { lower, raw } = readRoutes(unquoted.lower, unquoted.raw, ctx);
  if (lower.trim() === '') {
    ctx.questions.push({ about: 'request', question: 'What should the workflow do? The request is empty.' });
    return {
      questions: dedupeQuestions(ctx.questions, ctx.quotes, ctx.argQuotes),
      notes: ctx.notes,
      request,
    };
  }

  // Limits, conditions and the trigger are read out of the whole text first; what is left are actions.
  const buf: RequestText = { text: readPhrases(lower) };
  readFiller(buf, raw, ctx);
  readSignoffAsks(buf, ctx);
  // Bounds on a duration ("more than thirty days") before money reads the number as dollars.
  const numberTests = readNumberTests(buf);
  readMoneyPhrases(buf, ctx);
  readSpelling(buf, ctx);
  const maxSteps = readStepLimit(buf, ctx);
  const noSignoff = readNoSignoff(buf, raw, ctx);
  readArgPhrases(buf, undefined, ctx);
  const said = readOtherwise(buf, raw, (w) => ctx.events?.some((e) => isNounOf(w, e)) ?? false);
  const unread = buf.text;
  const money = readMoney(buf);
  readRestatedBounds(buf, unread, raw, ctx);
  const otherwise = said ? branchMoney(said, money, ctx) : undefined;
  const currencyNot = readNotCurrency(buf);
  const currency = currencyNot ?? readCurrency(buf) ?? readCurrencyBefore(buf, ctx);
  const asides = readAsides(buf, raw);
  const audience = readAudience(buf, ctx);
  const { event, qualifiers } = readTrigger(buf, ctx);
  const restated = readRestated(buf, raw, event, ctx);
  const fieldTests = [
    ...asideTests(asides, event, ctx),
    ...readQualifiers(qualifiers ?? [], event, ctx),
    ...readFieldTests(buf, raw, event, ctx),
  ];
  // The same action said twice ("refund requests: refund them") is one step.
  const once = (list: DraftStep[]) =>
    list.filter(
      (s, i, all) =>
        all.findIndex((x) => x.step.tool === s.step.tool && hashOf(x.step.args) === hashOf(s.step.args)) ===
        i,
    );
  const branch = otherwise ? readBranch(otherwise, buf, raw, event, lower, money, ctx) : undefined;
  const steps = branch ? branch.all : once(readSteps(splitClauses(buf.text, raw), event, lower, ctx));
  applyRestated(restated, steps, ctx);
  // Read steps the arguments need (a grant's `active` from the directory) come first.
  const flow: FlowStep[] = branch ? branch.flow : steps.map((s) => s.step);
  const implied = placeImpliedReads(
    steps,
    flow,
    event,
    (tool) => fillArgs({ text: '', raw: '', approval: false }, tool, event, ctx),
    ctx,
  ).length;

  // Conditions become the trigger's `when`; money bounds become the spend cap.
  const when = alternatives([
    ...triggerConditions(
      event,
      { currency, currencyNot: currencyNot !== undefined, audience, lowerBounds: money.lowerBounds },
      steps,
      ctx,
    ),
    ...numberConditions(numberTests, event, ctx),
    ...fieldTests,
  ]);
  for (const s of steps.filter((s) => noSignoff.includes(s.tool.name)))
    ctx.questions.push({
      about: `steps: ${s.step.name}`,
      question: `The request asks for ${s.tool.name} and also says no one need sign off. Should the workflow call ${s.tool.name} or not?`,
    });
  const maxCostUsd = spendCap(money.caps, steps, ctx);
  checkCoverage(buf.text, steps, ctx);
  checkStepLimit(maxSteps, steps, ctx);
  if (steps.length === 0) {
    if (!ctx.questions.some((q) => q.about.startsWith('steps')))
      ctx.questions.push({
        about: 'steps',
        question: `What should the workflow do? No action in the request matches a tool; the catalog has ${ctx.tools.map((t) => t.name).join(', ') || 'no tools'}.`,
        candidates: ctx.tools.map((t) => t.name),
      });
    return {
      questions: dedupeQuestions(ctx.questions, ctx.quotes, ctx.argQuotes),
      notes: ctx.notes,
      request,
    };
  }
  const triggers: TriggerSpec[] = event ? [{ event, ...(when.length ? { when: joinTests(when) } : {}) }] : [];
  const id =
    options.id ??
    deriveId(
      event,
      steps.map((s) => s.step.name),
    );
  const spec: WorkflowSpec = {
    id,
    version: 1,
    status: 'DRAFT',
    description: describe(request),
    triggers,
    steps: flow,
    limits: {
      maxSteps: Math.max(maxSteps ?? (branch ? branch.longest + implied : steps.length), 1),
      maxCostUsd,
    },
  };
  return {
    spec,
    questions: dedupeQuestions(ctx.questions, ctx.quotes, ctx.argQuotes),
    notes: ctx.notes,
    assumptions: [...new Set(ctx.assumptions)],
    request,
  };
}

/**
 * A test with an else (read-otherwise.ts): the steps before it, a choice (the test's steps when it
 * holds, else the others), and the steps after. A money tool in the branch a money test bounds
 * ("under $X" bounds its own branch, "over $X" the else) takes the amount as its spend cap.
 */
function readBranch(
  o: Otherwise,
  buf: RequestText,
  raw: string,
  event: string | undefined,
  lower: string,
  money: MoneyBounds,
  ctx: RequestContext,
): { all: DraftStep[]; flow: FlowStep[]; longest: number } | undefined {
  const before = splitClauses(buf.text.slice(0, o.at), raw.slice(0, o.at));
  const after = splitClauses(buf.text.slice(o.end), raw.slice(o.end));
  // "A if ..., otherwise B" and "A unless ..., in that case B": A is the clause just before the test.
  const a = o.order === 'first' ? undefined : before.pop();
  if (o.order !== 'first' && !a) return undefined;
  const said = o.yes ? splitClauses(o.yes.text, o.yes.raw) : [];
  const pre = readSteps(before, event, lower, ctx);
  const yes = readSteps(o.order === 'after' ? [a!] : said, event, lower, ctx);
  const no = readSteps(o.order === 'unless' ? [a!] : splitClauses(o.text, o.raw), event, lower, ctx);
  const post = readSteps(after, event, lower, ctx);
  const when = branchTest(o, event, ctx);
  if (when === undefined) return undefined;
  const all = [...pre, ...yes, ...no, ...post];
  const names = new Set<string>();
  for (const s of all) {
    let n = s.step.name;
    for (let i = 2; names.has(n); i++) n = `${s.step.name}_${i}`;
    s.step.name = n;
    names.add(n);
  }
  if (o.test.kind === 'money') {
    const upper = o.test.op === '<' || o.test.op === '<=';
    const bounded = upper ? yes : no;
    if (bounded.some((s) => s.tool.cost?.fromArg !== undefined)) money.caps.push(o.test.usd);
  }
  ctx.assumptions.push(
    `"${o.order === 'unless' ? 'unless' : 'otherwise'}" is read as a choice: ${yes.map((s) => s.step.name).join(', ') || 'nothing'} when ${stepConditionWords(when)}, else ${no.map((s) => s.step.name).join(', ') || 'nothing'}.`,
  );
  const choice: ChooseStepSpec = {
    name: o.test.kind === 'money' ? 'by_amount' : 'by_field',
    choose: [{ when, steps: yes.map((s) => s.step) }],
    ...(no.length ? { else: no.map((s) => s.step) } : {}),
  };
  return {
    all,
    flow: [...pre.map((s) => s.step), choice, ...post.map((s) => s.step)],
    longest: pre.length + Math.max(yes.length, no.length) + post.length,
  };
}

/**
 * A cap said inside a branch ("otherwise refund it up to $30") is the run's spend cap, read out of
 * the branch's text like any other; a lower bound there would be a condition of the branch alone,
 * which the grammar cannot say: a question.
 */
function branchMoney(o: Otherwise, money: MoneyBounds, ctx: RequestContext): Otherwise {
  const read = (text: string) => {
    const b = { text };
    const m = readMoney(b);
    money.caps.push(...m.caps);
    if (m.lowerBounds.length > 0)
      ctx.questions.push({
        about: 'steps.choose',
        question: `A branch of the choice says "over $${m.lowerBounds[0]!.usd}"; a draft can test the amount once. Which test is meant?`,
      });
    return b.text;
  };
  return {
    ...o,
    text: read(o.text),
    ...(o.yes ? { yes: { text: read(o.yes.text), raw: o.yes.raw } } : {}),
  };
}

/** The choice's test over the event's payload; undefined (and a question) when no field says it. */
function branchTest(o: Otherwise, event: string | undefined, ctx: RequestContext): string | undefined {
  const shape = ctx.events?.find((e) => e.type === event);
  if (o.test.kind === 'word') {
    // "if the reason is fraud": the field the words name, when the event has it.
    const of = o.test.of;
    const named =
      of === undefined ? [] : (shape?.payload ?? []).filter((p) => p === of || p.split('_').includes(of));
    const hit = shape
      ? fieldForValue(o.test.word, shape, ctx, named.length === 1 ? { field: named[0]! } : {})
      : undefined;
    if (!hit) {
      ctx.questions.push({
        about: 'steps.choose',
        question:
          `Which field of the ${event ?? 'trigger'} event says it is "${o.test.word}"? ${shape ? `It carries ${listOr(shape.payload)}.` : ''}`.trim(),
      });
      return undefined;
    }
    return `payload.${hit.field} == ${JSON.stringify(hit.value)}`;
  }
  const fields = shape?.payload.filter((p) => /amount|total|value|price|cost|sum/.test(p));
  if (event !== undefined && fields?.length !== 1) {
    ctx.questions.push({
      about: 'steps.choose',
      question: `Which field of the ${event} event holds the amount the request compares with $${o.test.usd}?`,
    });
    return undefined;
  }
  return `payload.${fields?.[0] ?? 'amount'} ${o.test.op} ${o.test.usd}`;
}

function describe(request: string): string {
  const one = request.replace(/\s+/g, ' ').trim();
  return one.length > 300 ? `${one.slice(0, 297)}...` : one;
}

function deriveId(event: string | undefined, steps: readonly string[]): string {
  const parts = [
    ...(event ? [event.replace(/[^a-z0-9]+/g, '-')] : []),
    ...steps.map((s) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-')),
  ];
  let id = parts.join('-').replace(/-+/g, '-').replace(/^-|-$/g, '').slice(0, 60).replace(/-$/, '');
  if (!isSpecId(id)) id = 'draft';
  return id;
}
