/**
 * The limits part of the grammar: `limits.maxSteps` from "at most 3 steps", and `limits.maxCostUsd`
 * from the money caps the request names (read-amounts.ts). Two caps, or a tool whose cost is an
 * argument with no cap at all ("with no spend cap every such call is refused"), or fewer steps
 * allowed than named, are questions. Without caps the cap is the sum of the steps' fixed costs and
 * of the amounts the words fix for money tools ("a $10 credit"), summed in integer cents.
 *
 * New limits (time, calls) belong here: read from the text first, checked against the steps after.
 */
import { formatUsd, usdToCents } from '../../money.ts';
import { numberWord } from '../request-words.ts';
import { cutOut, type DraftStep, type RequestContext, type RequestText } from './request-context.ts';

/** The step limit the request names ("no more than 2 steps"), cut out of the text. */
export function readStepLimit(buf: RequestText, ctx: RequestContext): number | undefined {
  const re =
    /\b(?:at most|no more than|not more than|up to|max(?:imum)?(?: of)?|limit(?: it| runs?)? to|in|within|never more than|never over)\s+([a-z0-9]+)\s+steps?\b(?:\s+(?:a|per|each)\s+run)?/;
  const m = re.exec(buf.text);
  if (!m) return undefined;
  cutOut(buf, m);
  const n = numberWord(m[1]!);
  if (n === undefined || n < 1) {
    ctx.questions.push({
      about: 'limits.maxSteps',
      question: `How many steps may a run take? "${m[1]}" is not a whole number of at least 1.`,
    });
    return undefined;
  }
  return n;
}

/** The spend cap of a run: the one cap named, else what the steps' fixed costs add up to. */
export function spendCap(named: readonly number[], steps: readonly DraftStep[], ctx: RequestContext): number {
  const moneyTools = steps.filter((s) => s.tool.cost?.fromArg !== undefined);
  let maxCostUsd: number;
  const caps = [...new Set(named)];
  if (caps.length > 1) {
    ctx.questions.push({
      about: 'limits.maxCostUsd',
      question: `The request names ${caps.map((c) => `$${formatUsd(c)}`).join(' and ')} as limits, and a spec has one spend cap per run. Which one should a run stay within?`,
      candidates: caps.map((c) => `$${formatUsd(c)}`),
    });
    maxCostUsd = Math.min(...caps);
  } else if (caps.length === 1) maxCostUsd = caps[0]!;
  else if (
    moneyTools.length > 0 &&
    moneyTools.every((s) => typeof s.step.args[s.tool.cost!.fromArg!] === 'number')
  ) {
    // "a $10 store credit": amounts the words fix are what a run spends, with the steps' fixed
    // costs (several amounts: the checks ask which bound is meant), Assumed.
    const cents = steps.reduce(
      (n, s) =>
        n +
        usdToCents(s.tool.cost?.fixedUsd ?? 0) +
        (s.tool.cost?.fromArg === undefined ? 0 : usdToCents(s.step.args[s.tool.cost.fromArg] as number)),
      0,
    );
    maxCostUsd = cents / 100;
    ctx.assumptions.push(
      `The spend cap is $${formatUsd(maxCostUsd)} a run: what ${moneyTools.map((s) => s.tool.name).join(' and ')} ${moneyTools.length === 1 ? 'moves' : 'move'} as the request fixes it; it states no other bound.`,
    );
  } else if (moneyTools.length > 0) {
    // An amount the request named in another currency is asked about already (read-spelling.ts):
    // its answer is the cap, so the cap is not asked for twice.
    if (!ctx.questions.some((q) => q.about === 'limits.maxCostUsd'))
      ctx.questions.push({
        about: 'limits.maxCostUsd',
        question: `How much may one run spend? ${moneyTools.map((s) => `${s.tool.name} costs its ${s.tool.cost!.fromArg}`).join('; ')}, and with no spend cap every such call is refused. Say e.g. "under $50" or "no more than $200 a run".`,
      });
    maxCostUsd = 0;
  }
  // Summed in integer cents: a sum of doubles could lose or invent a cent.
  else maxCostUsd = steps.reduce((n, s) => n + usdToCents(s.tool.cost?.fixedUsd ?? 0), 0) / 100;
  // A cap under what one call of a step costs refuses that call on every run ("budget 2 cents" for
  // a $0.05 page, "credit $25 ... unless mrr is under 20" read as a $20 cap): the person says which
  // is meant.
  if (caps.length > 0) {
    const costOf = (s: DraftStep) => {
      const fixed = s.tool.cost?.fromArg === undefined ? undefined : s.step.args[s.tool.cost.fromArg];
      return usdToCents(s.tool.cost?.fixedUsd ?? 0) + (typeof fixed === 'number' ? usdToCents(fixed) : 0);
    };
    const over = steps.filter((s) => costOf(s) > usdToCents(maxCostUsd));
    if (over.length > 0)
      ctx.questions.push({
        about: 'limits.maxCostUsd',
        question: `The spend cap, $${formatUsd(maxCostUsd)} a run, is less than one call of ${over.map((s) => `${s.tool.name} ($${formatUsd(costOf(s) / 100)})`).join(', ')} costs, so every such call would be refused. Should the cap be higher, or the step left out?`,
      });
  }
  return maxCostUsd;
}

/** A question when the request allows fewer steps than it names. */
export function checkStepLimit(
  maxSteps: number | undefined,
  steps: readonly DraftStep[],
  ctx: RequestContext,
): void {
  if (maxSteps !== undefined && maxSteps < steps.length)
    ctx.questions.push({
      about: 'limits.maxSteps',
      question: `The request allows at most ${maxSteps} step${maxSteps === 1 ? '' : 's'}, but names ${steps.length}: ${steps.map((s) => s.step.name).join(', ')}. Which should go, or may it take ${steps.length}?`,
    });
}
