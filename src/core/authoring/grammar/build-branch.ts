/**
 * A test with its steps, placed in the draft (read-otherwise.ts, read-step-tests.ts and
 * read-else-apart.ts read them): the steps before it, then
 *
 *   - with an else, a choice (`choose:` with the test's steps when it holds, `else:` the others,
 *     docs/flow.md);
 *   - with none ("tag it, and if it's above $40 tag it high-value too"), the test's steps, each
 *     carrying the test as its `if:`, while the others run regardless; when the test's steps are
 *     the whole draft, the test is the trigger's (a money bound: the cap, and the trigger's test
 *     too where the cap alone would not keep it: bounded-events.ts);
 *
 * then the steps after. A money tool in the branch a money test bounds ("under $X" bounds its own
 * branch, "over $X" the else) takes the amount as its spend cap.
 */
import { formatUsd } from '../../money.ts';
import type { ChooseStepSpec, FlowStep } from '../../spec/flow-steps.ts';
import { stepConditionWords } from '../condition-words.ts';
import { amountTest } from './bounded-events.ts';
import type { MoneyBounds } from './read-amounts.ts';
import { againstQuestions, readMoney } from './read-amounts.ts';
import { SAID_FIRST, splitClauses } from './read-clauses.ts';
import { fieldForValue } from './read-field-tests.ts';
import { numberConditions } from './read-number-tests.ts';
import type { Otherwise } from './read-otherwise.ts';
import { asksSignoff } from './read-signoff.ts';
import { type DraftStep, readSteps } from './read-steps.ts';
import { listOr, type RequestContext, type RequestText } from './request-context.ts';

/** A test in words; a read step not yet placed (implied-reads.ts) by its tool's name. */
const words = (when: string) => stepConditionWords(when.replace(/__implied__(.+?)__/g, '$1'));

/** The steps a branch gives: all of them, the flow, its longest path; a test left for the trigger. */
export interface Branch {
  readonly all: DraftStep[];
  readonly flow: FlowStep[];
  readonly longest: number;
  /** The test, when its steps are the whole draft and it is no money bound: the trigger's `when`. */
  readonly when?: string;
}

/** Steps named apart: a second `open_incident` is `open_incident_2`. Returns `steps`. */
export function uniqueNames(steps: DraftStep[]): DraftStep[] {
  const names = new Set<string>();
  for (const s of steps) {
    let n = s.step.name;
    for (let i = 2; names.has(n); i++) n = `${s.step.name}_${i}`;
    s.step.name = n;
    names.add(n);
  }
  return steps;
}

export function readBranch(
  o: Otherwise,
  buf: RequestText,
  raw: string,
  event: string | undefined,
  lower: string,
  money: MoneyBounds,
  ctx: RequestContext,
): Branch | undefined {
  const before = splitClauses(buf.text.slice(0, o.at), raw.slice(0, o.at));
  const after = splitClauses(buf.text.slice(o.end), raw.slice(o.end));
  // "A if ..., otherwise B" and "A unless ..., in that case B": A is the clause just before the test.
  const a = o.order === 'first' ? undefined : before.pop();
  if (o.order !== 'first' && !a) return undefined;
  const said = o.yes ? splitClauses(o.yes.text, o.yes.raw) : [];
  const pre = readSteps(before, event, lower, ctx);
  const yes = readSteps(o.order === 'after' ? [a!] : said, event, lower, ctx, true);
  const no = readSteps(o.order === 'unless' ? [a!] : splitClauses(o.text, o.raw), event, lower, ctx, true);
  const post = readSteps(after, event, lower, ctx);
  // "credit them. if it's over 75 a lead needs to ok it first": what the test's words say to do
  // first runs before the steps said before it.
  const first = o.yes !== undefined && SAID_FIRST.test(o.yes.text.trim());
  // With an else too, which steps run before which is not read: asked, never the money first.
  if (first && no.length > 0) {
    ctx.questions.push({
      about: 'steps.choose',
      question: `"${o.yes!.raw.trim()}" says to do it first, and the request says what happens otherwise: which steps should run before the others?`,
    });
    return undefined;
  }
  const all = first ? [...yes, ...pre, ...no, ...post] : [...pre, ...yes, ...no, ...post];
  uniqueNames(all);
  const bounds = (steps: readonly DraftStep[]) => {
    if (o.test.kind !== 'money') return;
    const upper = o.test.op === '<' || o.test.op === '<=';
    if ((upper ? yes : no) === steps && steps.some((s) => s.tool.cost?.fromArg !== undefined))
      money.caps.push(o.test.usd);
  };
  // No else, and nothing else runs regardless (or the test guards no step of its own: "refund it if
  // it's under $40, max $30"): the test is the whole workflow's, as if said of the trigger. A test on
  // what a read step returns stays the steps' own: the read runs regardless.
  const onRead = o.test.kind === 'condition' && o.test.when.startsWith('steps.');
  // "if it's over $5k ask finance to approve (first), then pay it": the sign-off said first may be
  // the test's alone, the payment everyone's. Which steps the test decides is asked, never the
  // whole workflow (which would pay no one under $5k).
  if (o.stepIf && yes.length > 1 && o.yes !== undefined && asksSignoff(yes[0]!.tool)) {
    ctx.questions.push({
      about: 'steps.if',
      question: `Which steps should "${o.yes!.raw.trim()}" run only for the events its test says? ${yes[0]!.tool.name} is said first; should ${listOr(yes.slice(1).map((s) => s.tool.name))} run for every event, or only for those?`,
    });
    return undefined;
  }
  if (o.stepIf && (yes.length === 0 || (!onRead && pre.length === 0 && post.length === 0))) {
    const flow = all.map((s) => s.step);
    if (o.test.kind === 'money') {
      const op = o.test.op;
      if (op !== '<' && op !== '<=') {
        money.lowerBounds.push({ op: op === '>=' ? '>=' : '>', usd: o.test.usd });
        return { all, flow, longest: all.length };
      }
      money.caps.push(o.test.usd);
      money.stepBounds.push({ op, usd: o.test.usd });
      // ("if it's under $40, refund it": the cap would let $40 itself through. Whether a step
      // acting before the money moves is bounded too is not read here: the cap, and the money
      // step's own test of an "under" (strict-bounds.ts).)
      const when = amountTest({ op, usd: o.test.usd }, all, event, ctx, () => false);
      return { all, flow, longest: all.length, ...(when ? { when } : {}) };
    }
    // "pay it if it matches, up to $5000": with no action after it, a test on what a read returns
    // guards the action said just before it (not the read itself), as "pay it if it matches." does.
    const gated = onRead && yes.length === 0 ? lastGateable(pre, o.test.when) : undefined;
    if (gated) {
      const when = branchTest(o, event, ctx);
      if (when === undefined) return undefined;
      gated.step.if = when;
      ctx.assumptions.push(
        `${gated.step.name} runs only when ${words(when)}: "${o.test.kind === 'condition' ? o.test.said.replace(/,$/, '') : ''}" is said after it, with no action of its own.`,
      );
      return { all, flow: all.map((s) => s.step), longest: all.length };
    }
    if (onRead) {
      ctx.questions.push({
        about: 'steps.if',
        question: `Which steps should "${o.test.kind === 'condition' ? o.test.said : ''}" decide? No action is said after it.`,
      });
      return undefined;
    }
    const when = branchTest(o, event, ctx);
    if (when === undefined) return undefined;
    return { all, flow, longest: all.length, when };
  }
  const when = branchTest(o, event, ctx);
  if (when === undefined) return undefined;
  bounds(yes);
  bounds(no);
  // "refunds of $30 or less: reply. otherwise refund it": the money moves on the side of the bound
  // it does not bound, and no larger cap is said: every payment would be refused. Asked.
  if (o.test.kind === 'money') {
    const upper = o.test.op === '<' || o.test.op === '<=';
    const usd = o.test.usd;
    const beyond = (upper ? no : yes).some((s) => s.tool.cost?.fromArg !== undefined);
    if (beyond && !money.caps.some((c) => c > usd)) {
      ctx.questions.push({
        about: 'limits.maxCostUsd',
        question: `The money moves for amounts ${upper ? 'over' : 'up to'} $${formatUsd(usd)}, the side $${formatUsd(usd)} does not bound, and no larger cap is said. How much may one run spend there?`,
      });
      return undefined;
    }
  }
  if (o.stepIf && no.length === 0) {
    for (const s of yes) s.step.if = when;
    ctx.assumptions.push(
      `${yes.map((s) => s.step.name).join(', ') || 'nothing'} ${yes.length > 1 ? 'run' : 'runs'} only when ${words(when)}; ${listOr([...pre, ...post].map((s) => s.step.name))} ${pre.length + post.length > 1 ? 'run' : 'runs'} regardless.`,
    );
    return { all, flow: all.map((s) => s.step), longest: all.length };
  }
  ctx.assumptions.push(
    `"${o.order === 'unless' ? 'unless' : 'otherwise'}" is read as a choice: ${yes.map((s) => s.step.name).join(', ') || 'nothing'} when ${words(when)}, else ${no.map((s) => s.step.name).join(', ') || 'nothing'}.`,
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
export function branchMoney(o: Otherwise, money: MoneyBounds, ctx: RequestContext): Otherwise {
  const read = (text: string) => {
    const b = { text };
    const m = readMoney(b);
    ctx.questions.push(...againstQuestions(m));
    money.caps.push(...m.caps);
    // "everything else under 150 -> approve + pay": which amounts, said in the branch's own words.
    money.filters.push(...m.filters.map((f) => ({ ...f, heading: text.slice(0, f.at) })));
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
  if (o.test.kind === 'condition') return o.test.when;
  if (o.test.kind === 'duration') {
    const asked = ctx.questions.length;
    const [when] = numberConditions([o.test.test], event, ctx);
    return ctx.questions.length === asked ? when : undefined;
  }
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

/** The last of `steps` a test on a read's output (`when`) may guard: not that read itself. */
function lastGateable(steps: readonly DraftStep[], when: string): DraftStep | undefined {
  const read = /^steps\.(?:__implied__(.+?)__|([A-Za-z0-9_-]+))\./.exec(when);
  const name = read?.[1] ?? read?.[2];
  return [...steps].reverse().find((s) => s.step.name !== name && s.tool.name !== name);
}
