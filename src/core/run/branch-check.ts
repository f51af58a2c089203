/**
 * Verify's check of the declared control flow: every recorded decision (`branch.chosen`,
 * `step.skipped`, a loop's `foreach.started`) must follow from the run's own values; a loop's
 * recorded list must be what its `items` gives from them, within its `max`, and an iteration's
 * step must name one of the recorded items. Fed the run's entries in order, it
 * checks each decision's `reads` against the values the run had at that point (its event, the
 * outputs of the steps completed before it); given the pinned spec, it decides each condition again
 * from the recorded reads alone and checks the recorded branch (or skip) is what they decide.
 * A parallel's join (`parallel.joined`) must say what the ledger before it says: the branches
 * done, in the order their last step was done, and (join: first) the others cut, with their steps
 * not yet done. A failure is `branch_mismatch` naming the seq, the step and what disagrees. A
 * wait for an event's end is checked too (`wait_mismatch`): the recorded event must be one the
 * wait could take and its match must hold for it; its output then joins the run's values. Pure;
 * streams in constant memory per decision (the reads; a join, the order steps were done in), never
 * executes anything.
 */
import { canonicalize } from '../canonical/index.ts';
import type { EntryKind, PayloadOf, VerifyFailure } from '../ledger/index.ts';
import {
  conditionFromReads,
  conditionPaths,
  decideEventMatch,
  type EventLike,
  emptyLoopOutput,
  eventMatchRoot,
  fileIterationOutput,
  findStep,
  isChooseStep,
  isEventWait,
  isLoopStep,
  isParallelStep,
  isToolStep,
  isWaitStep,
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

/** A join, with the order the run's steps were done in before it. */
interface JoinDecision {
  readonly seq: number;
  readonly p: PayloadOf<'parallel.joined'>;
  readonly done: ReadonlyMap<string, number>;
}

export class BranchCheck {
  private event: Readonly<Record<string, unknown>> = {};
  /** The open wait for an event (`wait.started` kind event), and the events earlier waits took. */
  private waitOpen: PayloadOf<'wait.started'> | undefined;
  private readonly taken = new Set<string>();
  /** Each wait for an event that ended on one, its `match` as recorded, to check against the spec. */
  private readonly eventWaits: { seq: number; step: string; match: string | undefined }[] = [];
  private readonly outputs: Record<string, unknown> = {};
  private readonly decisions: Decision[] = [];
  private readonly joins: JoinDecision[] = [];
  /** The order the run's steps were done in (completed, skipped, reconciled as done). */
  private readonly done = new Map<string, number>();
  /** Each recorded loop's count: an iteration's step must name one of its items. */
  private readonly loops = new Map<string, number>();
  private failure: VerifyFailure | undefined;

  private markDone(step: string): void {
    if (!this.done.has(step)) this.done.set(step, this.done.size);
  }

  apply(kind: EntryKind, payload: unknown, seq: number): void {
    if (this.failure) return;
    if (kind === 'run.started') this.event = { ...(payload as PayloadOf<'run.started'>).event };
    else if (kind === 'step.completed') {
      const p = payload as PayloadOf<'step.completed'>;
      this.outputs[p.step] = p.output;
      this.markDone(p.step);
      fileIterationOutput(this.outputs, p.step, p.output);
    } else if (kind === 'step.reconciled') {
      const p = payload as PayloadOf<'step.reconciled'>;
      if (p.happened) this.outputs[p.step] = p.output ?? null;
      if (p.happened) this.markDone(p.step);
      if (p.happened) fileIterationOutput(this.outputs, p.step, p.output ?? null);
    } else if (kind === 'step.allowed') this.checkIteration(payload as PayloadOf<'step.allowed'>, seq);
    else if (kind === 'foreach.started') {
      const p = payload as PayloadOf<'foreach.started'>;
      const steps: Record<string, { output: unknown }> = {};
      for (const [k, v] of Object.entries(this.outputs)) steps[k] = { output: v };
      this.decisions.push({ seq, kind, p, event: this.event, steps });
      this.loops.set(p.step, p.count);
      this.outputs[p.step] = emptyLoopOutput(p.count);
    } else if (kind === 'step.suppressed') {
      this.markDone((payload as PayloadOf<'step.suppressed'>).step);
    } else if (kind === 'parallel.joined') {
      this.joins.push({ seq, p: payload as PayloadOf<'parallel.joined'>, done: new Map(this.done) });
    } else if (kind === 'wait.started') {
      const p = payload as PayloadOf<'wait.started'>;
      this.waitOpen = p.kind === 'event' ? p : undefined;
    } else if (kind === 'wait.ended') {
      const p = payload as PayloadOf<'wait.ended'>;
      const open = this.waitOpen;
      this.waitOpen = undefined;
      const why = open && open.step === p.step ? this.checkEventEnd(open, p, seq) : undefined;
      if (why)
        this.failure = {
          code: 'wait_mismatch',
          seq,
          message: `wait.ended at seq ${seq} (step ${p.step}): ${why}`,
        };
    } else if (kind === 'step.skipped' || kind === 'branch.chosen') {
      if (kind === 'step.skipped') this.markDone((payload as PayloadOf<'step.skipped'>).step);
      const d = { seq, kind, p: payload } as Decision & { kind: 'step.skipped' | 'branch.chosen' };
      this.decisions.push(d);
      this.checkReads(d);
    }
  }

  /**
   * A wait for an event's end: the event it took, in full, must be of its type and tenant, inside
   * its window, not taken before, and its match, decided again on it and the run's values, must
   * hold and read what the entry records. Then the wait's output is the run's value.
   */
  private checkEventEnd(
    open: PayloadOf<'wait.started'>,
    p: PayloadOf<'wait.ended'>,
    seq: number,
  ): string | undefined {
    const fail = (why: string) => why;
    if (p.reason === 'event') {
      const e = p.event;
      if (!e) return fail('it ended on an event but records none');
      if (e.type !== open.event) return fail(`it took a ${e.type} event, but waited for ${open.event}`);
      if (e.tenant !== this.event.tenant) return fail(`it took an event of tenant ${e.tenant}`);
      const arrived = p.arrivedAt === undefined ? Number.NaN : Date.parse(p.arrivedAt);
      if (!(arrived >= Date.parse(open.since ?? '')))
        return fail(`the event arrived at ${p.arrivedAt}, before its window (since ${open.since})`);
      if (open.fireAt !== undefined && arrived > Date.parse(open.fireAt))
        return fail(`the event arrived at ${p.arrivedAt}, after its timeout (${open.fireAt})`);
      const key = `${e.source}\n${e.id}`;
      if (this.taken.has(key)) return fail(`event ${e.id} of ${e.source} was taken by an earlier wait`);
      this.taken.add(key);
      const d = decideEventMatch(open.match, eventMatchRoot(e, this.event, this.outputs));
      if (!d.value) return fail(`its match ${open.match} does not hold for the event it took`);
      if (canonicalize(d.reads) !== canonicalize(open.match === undefined ? {} : (p.reads ?? {})))
        return fail(
          `its reads ${JSON.stringify(p.reads)} are not what the match reads: ${JSON.stringify(d.reads)}`,
        );
      this.eventWaits.push({ seq, step: p.step, match: open.match });
      this.outputs[p.step] = { timedOut: false, event: e };
      return undefined;
    }
    if (p.reason === 'timeout') {
      if (open.fireAt === undefined || Date.parse(p.at) < Date.parse(open.fireAt))
        return fail(`it timed out at ${p.at}, before its timeout ${open.fireAt ?? '(none)'}`);
      this.outputs[p.step] = { timedOut: true };
      return undefined;
    }
    return fail(`a wait for an event cannot end by ${p.reason}`);
  }

  /** The first decision that does not follow (reads first, then each decided again from `spec`). */
  result(spec: WorkflowSpec | undefined): VerifyFailure | undefined {
    if (this.failure || !spec) return this.failure;
    for (const w of this.eventWaits) {
      const step = findStep(spec, w.step);
      const match = step && isWaitStep(step) && isEventWait(step.wait) ? step.wait.match : undefined;
      if (!step || !isWaitStep(step) || !isEventWait(step.wait) || match !== w.match)
        return {
          code: 'wait_mismatch',
          seq: w.seq,
          message: `wait.ended at seq ${w.seq}: the spec has no wait for an event ${w.step} with match ${JSON.stringify(w.match)}`,
        };
    }
    for (const d of this.decisions) {
      const why =
        d.kind === 'step.skipped'
          ? skipProblem(spec, d.p)
          : d.kind === 'branch.chosen'
            ? choiceProblem(spec, d.p)
            : loopProblem(spec, d.p, d.event, d.steps);
      if (why) return { code: 'branch_mismatch', seq: d.seq, message: `${d.kind} at seq ${d.seq}: ${why}` };
    }
    for (const j of this.joins) {
      const why = joinProblem(spec, j);
      if (why)
        return { code: 'branch_mismatch', seq: j.seq, message: `parallel.joined at seq ${j.seq}: ${why}` };
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

/** What the join should say, from the spec and the order steps were done in before it. */
function joinProblem(spec: WorkflowSpec, j: JoinDecision): string | undefined {
  const step = findStep(spec, j.p.step);
  if (!step || !isParallelStep(step)) return `the spec has no parallel step ${j.p.step}`;
  const { join, branches } = step.parallel;
  if (join !== j.p.join) return `step ${j.p.step} joins ${join}, not ${j.p.join}`;
  const lanes = Object.entries(branches).map(([b, steps]) => [b, steps.map((x) => x.name)] as const);
  const finishedAt = (names: readonly string[]) =>
    names.every((x) => j.done.has(x)) ? Math.max(...names.map((x) => j.done.get(x)!)) : undefined;
  const finished = lanes
    .map(([b, names]) => ({ b, at: finishedAt(names) }))
    .filter((x): x is { b: string; at: number } => x.at !== undefined)
    .sort((x, y) => x.at - y.at)
    .map((x) => x.b);
  const expected: PayloadOf<'parallel.joined'> = { step: j.p.step, join, finished };
  if (join === 'all' && finished.length < lanes.length)
    return `branch ${lanes.find(([b]) => !finished.includes(b))![0]} had not finished, and a join: all waits for every branch`;
  if (join === 'first') {
    const cut = lanes.filter(([b]) => !finished.includes(b));
    if (cut.length > 0) {
      expected.cut = cut.map(([b]) => b);
      const notRun = cut.flatMap(([, names]) => names.filter((x) => !j.done.has(x)));
      if (notRun.length > 0) expected.notRun = notRun;
    }
  }
  if (canonicalize(expected) !== canonicalize(j.p))
    return `the run's steps before it say ${JSON.stringify(expected)}, but it records ${JSON.stringify(j.p)}`;
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
