/**
 * A bound said with a number that no reader took ("under 1000 pay it. over 1000 email the vendor":
 * "over 1000" is left inside the email's clause, and the draft would email every invoice): once
 * the limits, conditions, the trigger and the branches have read what they can, a bound still in
 * the text would be dropped by the step readers, which read actions, not tests. A question, in
 * every draft, never dropped. Numbers the step readers take as values ("extend it by 10 days",
 * "reorder 500 units") carry no bound word and are not asked about here. Pure.
 */
import type { DraftStep, RequestContext } from './request-context.ts';

const NUMBER = String.raw`\$?[0-9][0-9,]*(?:\.[0-9]+)?k?`;
const BOUND = new RegExp(
  String.raw`\b(?:over|above|more than|greater than|bigger than|larger than|exceeding|under|below|less than|fewer than|at least|at most|no more than|up to)\s+${NUMBER}(?![0-9a-z%])|(?<![\w.$])${NUMBER}\s*(?:\+|and (?:up|over|above|under|below|less)\b|or (?:more|over|above|higher|greater|less|fewer|under|below|lower)\b)`,
  'g',
);

/** Asks about each bound with a number left in `text` (what the readers did not cut out). */
export function askUnreadBounds(text: string, ctx: RequestContext): void {
  const left = [...text.matchAll(BOUND)].map((m) => m[0].trim());
  if (left.length === 0) return;
  ctx.questions.push({
    about: 'request',
    question: `I could not read ${left.map((b) => `"${b}"`).join(', ')} as a test: no condition, branch or limit of the draft says it, and the steps it is said with would run regardless. Which events or steps is it for? Say it as a test ("if it is over $1000, email the vendor ...").`,
  });
}

/**
 * A bound on money that no step moves and no test reads ("if it's under 20 refund it, if it's over
 * 500 tag it" drafted as the tag alone): the action that moves it was lost on the way. Asked, where
 * nothing else is asked yet; a bound of $0 ("max $0") and one a test reads are no question.
 */
export function askUnspentBounds(
  caps: readonly number[],
  when: readonly string[],
  steps: readonly DraftStep[],
  ctx: RequestContext,
): void {
  const unspent = caps.filter(
    (c) => c > 0 && !when.some((w) => new RegExp(String.raw`[<>]=? ${c}\b`).test(w)),
  );
  if (unspent.length === 0 || ctx.questions.length > 0 || steps.some((s) => s.tool.cost !== undefined))
    return;
  ctx.questions.push({
    about: 'limits.maxCostUsd',
    question: `The request bounds money ($${Math.min(...unspent)}), but no step of the draft moves money and no test reads the bound. Which action should it bound?`,
  });
}
