/**
 * "under $100" leaves $100 itself out, and a spend cap of $100 lets it through: a cap alone pays
 * exactly $100 where the words say not to. Whatever reader took such a bound ("reimburse it if it's
 * under $100", "if it matches its PO and is under $1,000, pay it", "at least $100 and under $800"),
 * a draft whose cap is that bound and which tests it nowhere tests it where the money moves:
 *
 * - on the trigger, when the money steps are the workflow's own steps, unconditional, and only
 *   reads come before the first (no run at all, where the cap would have stopped the run at its
 *   money step);
 * - as the money step's `if:` where something acts before it, in a branch or not, when nothing but
 *   reads comes after it (what the cap would have stopped after it does not run either way);
 * - asked otherwise: with a step acting after the money, skipping the money and refusing it (the
 *   run stops) are different workflows, and the words do not say which.
 *
 * Only an amount the money step takes from the event is tested; each test is listed under Assumed.
 */
import { usdToCents } from '../../money.ts';
import {
  allSteps,
  type FlowStep,
  isChooseStep,
  isToolStep,
  nestedLists,
  type StepSpec,
} from '../../spec/flow-steps.ts';
import { payloadFieldOf } from '../arg-words.ts';
import { dollars } from '../condition-words.ts';
import { comparisonsOf, payloadField } from '../test-comparisons.ts';
import type { AmountFilter } from './read-amounts.ts';
import type { RequestContext } from './request-context.ts';

interface MoneyCall {
  readonly step: StepSpec;
  readonly field: string | undefined;
  /** The step's own list is the workflow's. */
  readonly top: boolean;
  /** A step that is no read comes before it in the workflow's list (for a top-level call). */
  readonly actsBefore: boolean;
  /** A step that is no read runs after it: later in its list, or after the step that holds it. */
  readonly actsAfter: boolean;
}

/** Pushes the trigger's test onto `when`, or sets the money steps' `if:`, or asks. */
export function keepStrictBound(
  filters: readonly Pick<AmountFilter, 'op' | 'usd'>[],
  cap: number,
  when: string[],
  flow: readonly FlowStep[],
  ctx: RequestContext,
): void {
  const bound = filters.find((f) => f.op === '<' && f.usd === cap);
  if (bound === undefined || cap <= 0) return;
  const calls = moneyCalls(flow, ctx);
  const fields = new Set(calls.map((c) => c.field));
  const [field] = fields;
  if (calls.length === 0 || fields.size !== 1 || field === undefined) return;
  const test = `payload.${field} < ${cap}`;
  const tests = [
    ...when,
    ...allSteps(flow).flatMap((s) =>
      isToolStep(s) ? (s.if === undefined ? [] : [s.if]) : isChooseStep(s) ? s.choose.map((b) => b.when) : [],
    ),
  ];
  const tested = tests
    .flatMap(comparisonsOf)
    .some((c) => payloadField(c) === field && c.op === '<' && c.value === cap);
  if (tested) return;
  const usd = dollars(usdToCents(cap));
  const tools = [...new Set(calls.map((c) => c.step.tool))].join(', ');
  if (calls.every((c) => c.top && c.step.if === undefined) && !calls[0]!.actsBefore) {
    when.push(test);
    ctx.assumptions.push(
      `"under ${usd}" leaves ${usd} itself out, which the spend cap lets through: the trigger tests ${field} < ${cap} too.`,
    );
    return;
  }
  if (calls.some((c) => c.actsAfter)) {
    ctx.questions.push({
      about: 'limits.maxCostUsd',
      question: `"under ${usd}" leaves ${usd} itself out, but the spend cap of ${usd} lets ${tools} move exactly ${usd}, and steps follow it. At ${usd} or more, should ${tools} be skipped and the steps after it still run, or should the run stop there?`,
    });
    return;
  }
  for (const c of calls) c.step.if = c.step.if === undefined ? test : `(${c.step.if}) and ${test}`;
  ctx.assumptions.push(
    `"under ${usd}" leaves ${usd} itself out, which the spend cap lets through: ${tools} runs only if ${field} < ${cap}.`,
  );
}

/** The tool steps that move money, anywhere in `flow`, with where they stand. */
function moneyCalls(flow: readonly FlowStep[], ctx: RequestContext): MoneyCall[] {
  const tools = new Map(ctx.tools.map((t) => [t.name, t]));
  const acts = (s: FlowStep): boolean =>
    isToolStep(s) ? tools.get(s.tool)?.effect !== 'read' : nestedLists(s).some((l) => l.steps.some(acts));
  const out: MoneyCall[] = [];
  const walk = (list: readonly FlowStep[], top: boolean, outerAfter: boolean) => {
    list.forEach((s, i) => {
      const after = outerAfter || list.slice(i + 1).some(acts);
      const tool = isToolStep(s) ? tools.get(s.tool) : undefined;
      const from = tool?.cost?.fromArg;
      if (isToolStep(s) && from !== undefined)
        out.push({
          step: s,
          field: payloadFieldOf(s.args[from]),
          top,
          actsBefore: list.slice(0, i).some(acts),
          actsAfter: after,
        });
      for (const l of nestedLists(s)) walk(l.steps, false, after);
    });
  };
  walk(flow, true, false);
  return out;
}
