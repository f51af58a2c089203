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
import type { FlowStep } from '../spec/flow-steps.ts';
import { isSpecId } from '../spec/validate-spec.ts';
import type { TriggerSpec, WorkflowSpec } from '../spec/workflow-spec.ts';
import type { CompiledRequest, CompileOptions, DraftCatalog } from './compiled-request.ts';
import { askActionNothing } from './grammar/action-nothing.ts';
import { alternatives } from './grammar/alternative-tests.ts';
import { askBoundInChoice, boundedEvents } from './grammar/bounded-events.ts';
import { branchMoney, readBranch } from './grammar/build-branch.ts';
import { askDroppedActions } from './grammar/dropped-actions.ts';
import { fillFromEarlierReads } from './grammar/earlier-outputs.ts';
import { spellAsEvents, spellFlowAsEvents } from './grammar/event-spelling.ts';
import { askEventValueArgs, askMadeValues } from './grammar/event-value-args.ts';
import { fillArgs } from './grammar/fill-args.ts';
import { placeImpliedReads } from './grammar/implied-reads.ts';
import { readJoinedTests } from './grammar/joined-tests.ts';
import { normaliseRequest, readPhrases } from './grammar/normalise-request.ts';
import { askOrBetweenTests, askOrValuesDropped } from './grammar/or-between-tests.ts';
import { askOtherToolsWords } from './grammar/other-tools-words.ts';
import { againstQuestions, readCurrency, readMoney } from './grammar/read-amounts.ts';
import { readArgPhrases } from './grammar/read-arg-phrases.ts';
import { type Aside, asideTests, readAsides, readIgnored } from './grammar/read-asides.ts';
import { splitClauses } from './grammar/read-clauses.ts';
import { readAudience, readNotCurrency, triggerConditions } from './grammar/read-conditions.ts';
import { countConditions, readCountTests } from './grammar/read-count-tests.ts';
import { checkCoverage } from './grammar/read-coverage.ts';
import { elseChoice, readElseApart, type SaidTests } from './grammar/read-else-apart.ts';
import { fieldNumberConditions, readFieldNumbers } from './grammar/read-field-numbers.ts';
import { readFieldTests, readQualifiers } from './grammar/read-field-tests.ts';
import { applyRestated, readFiller, readRestated } from './grammar/read-filler.ts';
import { checkStepLimit, readStepLimit, spendCap } from './grammar/read-limits.ts';
import { readMessageTexts } from './grammar/read-message-text.ts';
import { readMoneyPhrases, readRestatedBounds } from './grammar/read-money-phrases.ts';
import { readNamedTexts } from './grammar/read-named-texts.ts';
import { numberConditions, readNumberTests } from './grammar/read-number-tests.ts';
import { readOtherwise } from './grammar/read-otherwise.ts';
import { readOutcomeTest } from './grammar/read-outcome-tests.ts';
import { fillPlaceholders, textAround } from './grammar/read-placeholders.ts';
import { readRoutes } from './grammar/read-routes.ts';
import { askSomeCallsApproval, readNoSignoff, readSignoffAsks } from './grammar/read-signoff.ts';
import { quoteUnquoted, readSpelling } from './grammar/read-spelling.ts';
import { readOutputTest, readStepIf } from './grammar/read-step-tests.ts';
import { type DraftStep, readSteps } from './grammar/read-steps.ts';
import { readTrigger } from './grammar/read-trigger.ts';
import { readOnlyValues, readValueHeading } from './grammar/read-value-headings.ts';
import { readCurrencyBefore } from './grammar/read-values.ts';
import { askUnusedYesNo, readYesNo } from './grammar/read-yes-no.ts';
import { askRepeatedBounds } from './grammar/repeated-bounds.ts';
import {
  contextFor,
  dedupeQuestions,
  type RequestContext,
  type RequestText,
  showQuotes,
} from './grammar/request-context.ts';
import { keepStrictBound } from './grammar/strict-bounds.ts';
import { isNounOf } from './grammar/trigger-words.ts';
import { askUnitAmounts } from './grammar/unit-amounts.ts';
import { askUnreadBounds, askUnspentBounds } from './grammar/unread-bounds.ts';
import { askUnreadValues } from './grammar/unread-values.ts';
import { readValueCases } from './grammar/value-cases.ts';
import { readValueSpellings } from './grammar/value-spellings.ts';
import { askWhichOnesWords } from './grammar/which-ones-words.ts';

/** Tests joined with "and"; alternatives said alone lose their parentheses ("a or b"). */
function joinTests(tests: readonly string[]): string {
  const only = tests.length === 1 ? tests[0]! : undefined;
  return only?.startsWith('(') && only.endsWith(')') && !only.slice(1, -1).includes('(')
    ? only.slice(1, -1)
    : tests.join(' and ');
}

/** `text` with the sentences that leave events out blanked (the same length). */
function blankSpans(text: string, asides: readonly Aside[]): string {
  let t = text;
  for (const { span } of asides)
    if (span) t = t.slice(0, span.at) + ' '.repeat(span.length) + t.slice(span.at + span.length);
  return t;
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
  const messages = readMessageTexts(read.lower, read.raw, ctx);
  // "reason: flagged by users": text for an argument said by its name.
  const texts = readNamedTexts(messages.lower, messages.raw, ctx);
  const unquoted = quoteUnquoted(texts.lower, texts.raw, ctx.quotes, ctx.assumptions);
  const spelled = readValueSpellings(unquoted.lower, unquoted.raw, ctx);
  const routed = readRoutes(spelled.lower, spelled.raw, ctx);
  const { lower, raw } = readJoinedTests(routed.lower, routed.raw, ctx);
  if (lower.trim() === '') {
    ctx.questions.push({ about: 'request', question: 'What should the workflow do? The request is empty.' });
    return {
      questions: dedupeQuestions(ctx.questions, ctx.quotes, ctx.argQuotes),
      notes: ctx.notes,
      request,
    };
  }

  // Limits, conditions and the trigger are read out of the whole text first; what is left are actions.
  const phrased = readPhrases(lower);
  const buf: RequestText = { text: phrased };
  readFiller(buf, raw, ctx);
  readSignoffAsks(buf, ctx);
  askSomeCallsApproval(phrased, ctx);
  askActionNothing(phrased, ctx);
  // Bounds on a duration ("more than thirty days") before money reads the number as dollars.
  const numberTests = readNumberTests(buf);
  // Bounds on a count ("reported 5 or more times", "10+ reports"), for the same reason.
  const countTests = readCountTests(buf, ctx);
  // Bounds on a field named in words ("a risk score over 90"), for the same reason.
  const fieldNumbers = readFieldNumbers(buf, ctx);
  // Yes/no arguments said in words ("keep a legal hold copy"): values, never actions.
  readYesNo(buf, ctx);
  readMoneyPhrases(buf, ctx);
  readSpelling(buf, ctx);
  const maxSteps = readStepLimit(buf, ctx);
  const noSignoff = readNoSignoff(buf, raw, ctx);
  readArgPhrases(buf, undefined, ctx);
  const eventNoun = (w: string) => ctx.events?.some((e) => isNounOf(w, e)) ?? false;
  // "skip alcohol. everything else under 150 -> ...": events left out, before any else is read.
  const ignored = readIgnored(buf, raw, ctx);
  const said =
    readOutputTest(buf, raw, ctx) ??
    readOutcomeTest(buf, raw, ctx) ??
    readOtherwise(buf, raw, eventNoun) ??
    readStepIf(buf, raw, eventNoun);
  // An else said apart from its test ("... . otherwise refund it", "for everyone else ..."): cut out first.
  const apart = said ? undefined : readElseApart(buf, raw);
  const unread = buf.text;
  const money = readMoney(buf);
  ctx.questions.push(...againstQuestions(money));
  readRestatedBounds(buf, unread, raw, ctx);
  const currencyNot = readNotCurrency(buf);
  const currency = currencyNot ?? readCurrency(buf) ?? readCurrencyBefore(buf, ctx);
  const asides = [...ignored, ...readAsides(buf, raw, ctx)];
  const audience = readAudience(buf, ctx);
  const cased = buf.text;
  const { event, qualifiers } = readTrigger(buf, ctx, said || apart ? lower : undefined);
  // "search alerts -> sev3. auth alerts -> sev2 and page the primary": cases keyed by a field's values.
  const cases = said ? undefined : readValueCases(cased, buf, raw, event, lower, ctx, apart);
  const restated = readRestated(buf, raw, event, ctx);
  // "meals or travel, USD only: approve ...": a heading of values says which events.
  const heading = readValueHeading(buf, event, Boolean(said || apart), ctx);
  const fieldTests = [
    ...heading,
    // "USD only pls.", "..., USD only": a sentence of values and "only" says which events too.
    ...readOnlyValues(buf, event, ctx),
    ...asideTests(asides, event, ctx),
    ...readQualifiers(qualifiers ?? [], event, ctx),
    ...readFieldTests(buf, raw, event, ctx),
  ].filter((t) => cases === undefined || !t.startsWith(`payload.${cases.field} `));
  // The test an else said apart answers is the choice's, no longer the trigger's.
  const tests: SaidTests = { numberTests, money, audience, fieldTests };
  const fromApart =
    apart && !cases
      ? elseChoice(
          apart,
          tests,
          buf,
          raw,
          event,
          ctx.events?.find((e) => e.type === event),
          ctx,
        )
      : undefined;
  const otherwise = said || fromApart ? branchMoney((said ?? fromApart)!, money, ctx) : undefined;
  // The same action said twice ("refund requests: refund them") is one step.
  const once = (list: DraftStep[]) =>
    list.filter(
      (s, i, all) =>
        all.findIndex((x) => x.step.tool === s.step.tool && hashOf(x.step.args) === hashOf(s.step.args)) ===
        i,
    );
  const branch =
    cases?.branch ?? (otherwise ? readBranch(otherwise, buf, raw, event, lower, money, ctx) : undefined);
  // A bound no reader took ("... over 1000 email the vendor") would be dropped by the step readers.
  askUnreadBounds(buf.text, ctx);
  const steps = branch ? branch.all : once(readSteps(splitClauses(buf.text, raw), event, lower, ctx));
  applyRestated(restated, steps, ctx);
  // Read steps the arguments need (a grant's `active` from the directory) come first.
  const flow: FlowStep[] = branch ? branch.flow : steps.map((s) => s.step);
  // "invoice <invoice number> is in our queue": placeholders in a text are what the run fills in.
  fillPlaceholders(flow, event, ctx);
  const implied = placeImpliedReads(
    steps,
    flow,
    event,
    (tool) => fillArgs({ text: '', raw: '', approval: false }, tool, event, ctx),
    ctx,
  ).length;
  // Arguments an earlier read step returns by name, or names in the step's words ("the order total").
  fillFromEarlierReads(steps, flow, ctx, event);

  // Conditions become the trigger's `when`; money bounds become the spend cap.
  // "unless the reason is too expensive": each value tested as the events spell it (too_expensive).
  const shape = ctx.events?.find((e) => e.type === event);
  spellFlowAsEvents(flow, shape, ctx);
  const when = alternatives([
    ...triggerConditions(
      event,
      {
        currency,
        currencyNot: currencyNot !== undefined,
        audience: tests.audience,
        lowerBounds: money.lowerBounds,
      },
      steps,
      ctx,
    ),
    ...numberConditions(numberTests, event, ctx),
    ...countConditions(countTests, event, ctx),
    ...fieldNumberConditions(fieldNumbers, event, ctx),
    ...fieldTests,
    ...(branch?.when ? [branch.when] : []),
    // "expenses under 75 → approve and reimburse": the bound says which events too (bounded-events.ts).
    // (A sentence that leaves events out is said of the events: "skip alcohol. anything under 150 -> ...".)
    ...(branch
      ? []
      : boundedEvents(blankSpans(phrased, ignored), money.filters, money.caps, steps, event, ctx)),
  ]).map((t) => spellAsEvents(t, shape, ctx));
  // In a choice, which case such a bound belongs to is not read: asked, never left to the cap alone.
  if (branch) askBoundInChoice(phrased, money.filters, money.caps, steps, JSON.stringify(branch.flow), ctx);
  for (const s of steps.filter((s) => noSignoff.includes(s.tool.name)))
    ctx.questions.push({
      about: `steps: ${s.step.name}`,
      question: `The request asks for ${s.tool.name} and also says no one need sign off. Should the workflow call ${s.tool.name} or not?`,
    });
  const maxCostUsd = spendCap(money.caps, steps, ctx);
  askUnspentBounds(money.caps, when, steps, ctx);
  // "under $100" with a cap of $100 and no test of it: the test goes where the money moves.
  keepStrictBound([...money.filters, ...money.stepBounds], maxCostUsd, when, flow, ctx);
  const drafted = `${when.join(' ')} ${JSON.stringify(flow)}`;
  checkCoverage(buf.text, steps, ctx, drafted, event);
  askEventValueArgs(phrased, steps, event, drafted, ctx);
  askMadeValues(phrased, steps, event, when, ctx);
  askOtherToolsWords(buf.text, steps, event, ctx);
  askUnitAmounts(unquoted.lower, steps, event, ctx);
  askWhichOnesWords(unquoted.lower, steps, shape, drafted, ctx);
  askRepeatedBounds(when, event, ctx);
  askOrBetweenTests(phrased, when, ctx);
  askOrValuesDropped(phrased, shape, drafted, ctx);
  // "open a sev3 for warnings": a value of the event's said and read by nothing says which events.
  askUnreadValues(buf.text, event, when, flow, steps, ctx);
  askDroppedActions(steps, ctx);
  askUnusedYesNo(
    steps.map((s) => s.step.args),
    ctx,
  );
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
  askUnusedTexts({ triggers, steps: flow }, ctx);
  return {
    spec,
    questions: dedupeQuestions(ctx.questions, ctx.quotes, ctx.argQuotes),
    notes: ctx.notes,
    assumptions: [...new Set(ctx.assumptions.map((a) => showQuotes(a, ctx.quotes, ctx.argQuotes)))],
    request,
  };
}

/**
 * A text the request gives (quoted, or read as the words to send) that nothing of the draft uses
 * is asked about, never dropped: the action it went with was not read ("& msg the manager: done").
 */
function askUnusedTexts(drafted: { triggers: unknown; steps: unknown }, ctx: RequestContext): void {
  const used = JSON.stringify(drafted).toLowerCase();
  for (const q of new Set(ctx.quotes)) {
    // (A placeholder in it, "<invoice number>", "{score}", is a template in the draft: the rest must be there.)
    const parts = textAround(q.replace(/[.!?]$/, '').trim())
      .map((p) => JSON.stringify(p.trim().toLowerCase()).slice(1, -1))
      .filter((p) => p !== '');
    if (parts.length > 0 && !parts.every((p) => used.includes(p)))
      ctx.questions.push({
        about: 'steps',
        question: `The request gives the text ${JSON.stringify(q)}, but no step of the draft uses it. Which action should it go with?`,
      });
  }
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
