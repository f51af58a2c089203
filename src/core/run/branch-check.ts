/**
 * Verify's check of the declared control flow: every recorded decision (`branch.chosen`,
 * `step.skipped`, a loop's `foreach.started`) must follow from the run's own values; a loop's
 * recorded list must be what its `items` gives from them, within its `max`, and an iteration's
 * step must name one of the recorded items. Fed the run's entries in order, it
 * checks each decision's `reads` against the values the run had at that point (its event, the
 * outputs of the steps completed before it); given the pinned spec, it decides each condition again
 * from the recorded reads alone and checks the recorded branch (or skip) is what they decide.
 * A failure is `branch_mismatch` naming the seq, the step and what disagrees. Pure; streams in
 * constant memory per decision (the reads), never executes anything.
 */
import { canonicalize } from '../canonical/index.ts';
import type { EntryKind, PayloadOf, VerifyFailure } from '../ledger/index.ts';
import {
  conditionFromReads,
  conditionPaths,
  type EventLike,
  emptyLoopOutput,
  fileIterationOutput,
  findStep,
  isChooseStep,
  isLoopStep,
  isToolStep,
  MISSING,
  parseIterationStepId,
  parseStepCondition,
  readPath,
  resolveArgs,
  stepConditionRoot,
  type WorkflowSpec,
} from '../spec/index.ts';

type Decision =
  | { seq: number; kind: 'step.skipped'; p: PayloadOf<'step.skipped'> }
  | { seq: number; kind: 'branch.chosen'; p: PayloadOf<'branch.chosen'> }
  | {
      seq: number;
      kind: 'foreach.started';
      p: PayloadOf<'foreach.started'>;
      /** What the loop's items template could read then: the event and the outputs so far. */
      event: Readonly<Record<string, unknown>>;
      steps: Record<string, { output: unknown }>;
    };

export class BranchCheck {
  private event: Readonly<Record<string, unknown>> = {};
  private readonly outputs: Record<string, unknown> = {};
  private readonly decisions: Decision[] = [];
  /** Each recorded loop's count: an iteration's step must name one of its items. */
  private readonly loops = new Map<string, number>();
  private failure: VerifyFailure | undefined;

  apply(kind: EntryKind, payload: unknown, seq: number): void {
    if (this.failure) return;
    if (kind === 'run.started') this.event = { ...(payload as PayloadOf<'run.started'>).event };
    else if (kind === 'step.completed') {
      const p = payload as PayloadOf<'step.completed'>;
      this.outputs[p.step] = p.output;
      fileIterationOutput(this.outputs, p.step, p.output);
    } else if (kind === 'step.reconciled') {
      const p = payload as PayloadOf<'step.reconciled'>;
      if (p.happened) this.outputs[p.step] = p.output ?? null;
      if (p.happened) fileIterationOutput(this.outputs, p.step, p.output ?? null);
    } else if (kind === 'step.allowed') this.checkIteration(payload as PayloadOf<'step.allowed'>, seq);
    else if (kind === 'foreach.started') {
      const p = payload as PayloadOf<'foreach.started'>;
      const steps: Record<string, { output: unknown }> = {};
      for (const [k, v] of Object.entries(this.outputs)) steps[k] = { output: v };
      this.decisions.push({ seq, kind, p, event: this.event, steps });
      this.loops.set(p.step, p.count);
      this.outputs[p.step] = emptyLoopOutput(p.count);
    } else if (kind === 'step.skipped' || kind === 'branch.chosen') {
      const d = { seq, kind, p: payload } as Decision & { kind: 'step.skipped' | 'branch.chosen' };
      this.decisions.push(d);
      this.checkReads(d);
    }
  }

  /** The first decision that does not follow (reads first, then each decided again from `spec`). */
  result(spec: WorkflowSpec | undefined): VerifyFailure | undefined {
    if (this.failure || !spec) return this.failure;
    for (const d of this.decisions) {
      const why =
        d.kind === 'step.skipped'
          ? skipProblem(spec, d.p)
          : d.kind === 'branch.chosen'
            ? choiceProblem(spec, d.p)
            : loopProblem(spec, d.p, d.event, d.steps);
      if (why) return { code: 'branch_mismatch', seq: d.seq, message: `${d.kind} at seq ${d.seq}: ${why}` };
    }
    return undefined;
  }

  /** An iteration's step is allowed only for an item its recorded loop holds. */
  private checkIteration(p: PayloadOf<'step.allowed'>, seq: number): void {
    const it = parseIterationStepId(p.step);
    if (!it) return;
    const count = this.loops.get(it.loop);
    if (count !== undefined && it.index < count) return;
    this.failure = {
      code: 'branch_mismatch',
      seq,
      message: `step.allowed at seq ${seq} names ${p.step}, but ${count === undefined ? `no loop ${it.loop} was recorded before it` : `loop ${it.loop} recorded ${count} items`}`,
    };
  }

  private checkReads(d: Decision & { kind: 'step.skipped' | 'branch.chosen' }): void {
    const root = stepConditionRoot(this.event, this.outputs);
    for (const [path, recorded] of Object.entries(d.p.reads)) {
      const v = readPath(root, path.split('.'));
      const had = v === MISSING || v === undefined ? null : v;
      if (canonicalize(had) !== canonicalize(recorded ?? null)) {
        this.failure = {
          code: 'branch_mismatch',
          seq: d.seq,
          message: `${d.kind} at seq ${d.seq} (step ${d.p.step}) says it read ${path} = ${JSON.stringify(recorded)}, but the run had ${JSON.stringify(had)} there`,
        };
        return;
      }
    }
  }
}

/** Every path of `src` the reads hold; else the first one they lack. */
function lacks(src: string, reads: Readonly<Record<string, unknown>>): string | undefined {
  return conditionPaths(parseStepCondition(src)).find((p) => !Object.hasOwn(reads, p));
}

function skipProblem(spec: WorkflowSpec, p: PayloadOf<'step.skipped'>): string | undefined {
  const step = findStep(spec, p.step);
  if (!step || !isToolStep(step) || step.if === undefined)
    return `the spec has no tool step ${p.step} with an if`;
  if (step.if !== p.condition)
    return `step ${p.step}'s if is ${JSON.stringify(step.if)}, not ${JSON.stringify(p.condition)}`;
  const missing = lacks(step.if, p.reads);
  if (missing) return `the reads lack ${missing}, which step ${p.step}'s condition reads`;
  if (conditionFromReads(step.if, p.reads))
    return `step ${p.step}'s condition ${step.if} holds for what it read, so the step was not to be skipped`;
  return undefined;
}

function choiceProblem(spec: WorkflowSpec, p: PayloadOf<'branch.chosen'>): string | undefined {
  const step = findStep(spec, p.step);
  if (!step || !isChooseStep(step)) return `the spec has no choice (choose:) named ${p.step}`;
  let decided: number | 'else' = 'else';
  for (const [j, b] of step.choose.entries()) {
    const missing = lacks(b.when, p.reads);
    if (missing) return `the reads lack ${missing}, which branch ${j + 1} of ${p.step} reads`;
    if (conditionFromReads(b.when, p.reads)) {
      decided = j;
      break;
    }
  }
  const shown = (b: number | 'else') => (b === 'else' ? 'else' : `branch ${b + 1}`);
  if (decided !== p.branch)
    return `${p.step} records ${shown(p.branch)}, but what it read decides ${shown(decided)}`;
  if (decided !== 'else' && p.when !== step.choose[decided]!.when)
    return `${p.step} records when ${JSON.stringify(p.when)}, but branch ${decided + 1} is ${JSON.stringify(step.choose[decided]!.when)}`;
  return undefined;
}

/** A loop's recorded list must be what its items template gives from the run's values then, within max. */
function loopProblem(
  spec: WorkflowSpec,
  p: PayloadOf<'foreach.started'>,
  event: Readonly<Record<string, unknown>>,
  steps: Record<string, { output: unknown }>,
): string | undefined {
  const step = findStep(spec, p.step);
  if (!step || !isLoopStep(step)) return `the spec has no loop (forEach:) named ${p.step}`;
  const r = resolveArgs(
    { items: step.forEach.items },
    { event: event as unknown as EventLike, steps, draw: () => undefined },
  );
  const had = r.ok ? r.value.items : undefined;
  if (canonicalize(had ?? null) !== canonicalize(p.items))
    return `${p.step} records ${p.count} items, but ${step.forEach.items} gives ${had === undefined ? 'nothing' : JSON.stringify(had).slice(0, 200)} from the run's values`;
  if (p.count > step.forEach.max)
    return `${p.step} records ${p.count} items, more than its max of ${step.forEach.max}`;
  return undefined;
}
