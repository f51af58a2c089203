/**
 * The fold of a loop into the run state: `foreach.started` records the loop's items as resolved
 * (the plan expands its body once per item), marks the loop done, and opens its output, one empty
 * object per item; a step's output, once recorded (`step.completed`, or `step.reconciled` as having
 * happened), goes where templates read it and, for an iteration's step, into its loop's output too
 * (`fileStepOutput`). Pure.
 */
import type { Entry, PayloadOf } from '../ledger/index.ts';
import { emptyLoopOutput, fileIterationOutput } from '../spec/index.ts';

/** The part of the run state (run-state.ts) this fold reads and moves. */
interface LoopState {
  readonly loops: Record<string, { readonly items: readonly unknown[] }>;
  readonly outputs: Record<string, unknown>;
  readonly stepScope: Record<string, { output: unknown }>;
  readonly completed: Set<string>;
}

export function foldLoopStarted(s: LoopState, e: Entry): void {
  const p = e.payload as PayloadOf<'foreach.started'>;
  s.loops[p.step] = { items: p.items };
  const output = emptyLoopOutput(p.count);
  s.outputs[p.step] = output;
  s.stepScope[p.step] = { output };
  s.completed.add(p.step);
}

/** Records a step's output by its name (`steps.<name>.output`), and in its loop's output if it is an iteration's. */
export function fileStepOutput(s: LoopState, step: string, output: unknown): void {
  s.outputs[step] = output;
  s.stepScope[step] = { output };
  fileIterationOutput(s.outputs, step, output);
}
