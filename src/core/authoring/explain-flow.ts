/**
 * The read-back of a step list with control flow: a guarded step says when it runs ("only if
 * …"), a choice reads as "if …: …; otherwise, if …: …; otherwise: …", its branches' steps
 * numbered under it (3.1, 3.2), a wait reads "then wait 15 minutes" / "then wait until …", a
 * parallel "runs these branches at the same time, then goes on when all (or the first) finish",
 * each branch's steps numbered under its name (2.crm.1), a loop "for each line of the event's
 * lines, in order, at most 20 …", its steps numbered under it (2.1, 2.2). Used by explain-spec.ts
 * for lists that are not a plain chain; a plain list reads exactly as it always did. Pure.
 */
import {
  type FlowStep,
  type ForEachStepSpec,
  isChooseStep,
  isLoopStep,
  isParallelStep,
  isToolStep,
  type JoinRule,
  type StepSpec,
} from '../spec/flow-steps.ts';
import { isWaitStep } from '../spec/wait-step.ts';
import { argWords } from './arg-words.ts';
import { stepConditionWords } from './condition-words.ts';
import { waitWords } from './wait-words.ts';

/** One line per step, nested branches indented; `toolLine` words a tool step numbered `n`. */
export function flowLines(
  steps: readonly FlowStep[],
  toolLine: (s: StepSpec, n: string) => string,
  prefix = '',
  indent = '',
): string[] {
  const out: string[] = [];
  steps.forEach((s, i) => {
    const n = `${prefix}${i + 1}`;
    if (isToolStep(s)) {
      const only = s.if === undefined ? '' : `; only if ${stepConditionWords(s.if)}, else skipped`;
      out.push(`${indent}${toolLine(s, n)}${only}.`);
      return;
    }
    if (isWaitStep(s)) {
      out.push(`${indent}${n}. ${s.name}: then ${waitWords(s.wait)}; calls nothing.`);
      return;
    }
    if (isParallelStep(s)) {
      out.push(
        `${indent}${n}. ${s.name}: runs these branches at the same time, ${joinWords(s.parallel.join)}:`,
      );
      for (const [b, steps] of Object.entries(s.parallel.branches)) {
        out.push(`${indent}   branch ${b}:`);
        out.push(...flowLines(steps, toolLine, `${n}.${b}.`, `${indent}     `));
      }
      return;
    }
    if (isLoopStep(s)) {
      out.push(`${indent}${n}. ${s.name}: ${loopWords(s)}:`);
      out.push(...flowLines(s.steps, toolLine, `${n}.`, `${indent}   `));
      return;
    }
    if (!isChooseStep(s)) return;
    out.push(`${indent}${n}. ${s.name}: chooses one way, the first whose condition holds:`);
    s.choose.forEach((b, j) => {
      const head = `${j === 0 ? 'if' : 'otherwise, if'} ${stepConditionWords(b.when)}:`;
      out.push(`${indent}   ${head}${b.steps.length === 0 ? ' nothing' : ''}`);
      out.push(...flowLines(b.steps, toolLine, `${n}.${j + 1}.`, `${indent}     `));
    });
    const otherwise = s.else ?? [];
    out.push(`${indent}   otherwise:${otherwise.length === 0 ? ' nothing' : ''}`);
    out.push(...flowLines(otherwise, toolLine, `${n}.else.`, `${indent}     `));
  });
  return out;
}

/** The summary's steps: "1. look up the order; 2. if …: refund it; otherwise: reply". */
export function flowSummary(steps: readonly FlowStep[], doing: (s: StepSpec) => string): string {
  return steps
    .map((s, i) => {
      const n = `${i + 1}. `;
      if (isToolStep(s))
        return `${n}${s.if === undefined ? '' : `if ${stepConditionWords(s.if)}, `}${doing(s)}`;
      if (isWaitStep(s)) return `${n}${waitWords(s.wait)}`;
      if (isParallelStep(s)) {
        const ways = Object.entries(s.parallel.branches).map(([b, steps]) => `${b}: ${inner(steps, doing)}`);
        return `${n}at the same time (${ways.join('; ')}), ${joinWords(s.parallel.join)}`;
      }
      if (isLoopStep(s))
        return `${n}for each ${s.forEach.as} (at most ${s.forEach.max}): ${inner(s.steps, doing)}`;
      if (!isChooseStep(s)) return n;
      const ways = s.choose.map(
        (b, j) =>
          `${j === 0 ? 'if' : 'otherwise, if'} ${stepConditionWords(b.when)}: ${inner(b.steps, doing)}`,
      );
      if ((s.else ?? []).length > 0) ways.push(`otherwise: ${inner(s.else!, doing)}`);
      return `${n}${ways.join('; ')}`;
    })
    .join('; ');
}

function inner(steps: readonly FlowStep[], doing: (s: StepSpec) => string): string {
  if (steps.length === 0) return 'nothing';
  return steps
    .map((s) => {
      if (isToolStep(s)) return `${s.if === undefined ? '' : `if ${stepConditionWords(s.if)}, `}${doing(s)}`;
      if (isParallelStep(s)) return `parallel branches (${s.name})`;
      if (isLoopStep(s)) return `a loop (${s.name})`;
      return isWaitStep(s) ? waitWords(s.wait) : `a choice (${s.name})`;
    })
    .join(', then ');
}

/** How a parallel joins, in words. */
function joinWords(join: JoinRule): string {
  return join === 'all'
    ? 'then goes on when all of them have finished'
    : 'then goes on when the first of them finishes (the others stop: their steps not started never start)';
}

/** "for each line of the event's lines, at most 20 (more fails the run before any call), in order". */
export function loopWords(s: ForEachStepSpec): string {
  const f = s.forEach;
  return `for each ${f.as} of ${argWords(f.items)}, in order, at most ${f.max} (a longer list fails the run before any of these calls)`;
}
