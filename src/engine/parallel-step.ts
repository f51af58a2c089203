/**
 * The walkers of a parallel step (walk.ts `NODE_KINDS`): its branches' steps, taken together in
 * rounds, and its join.
 *
 * A round takes the ready step of every branch of one parallel (at most one per branch: each is a
 * chain). It decides them one after another, in the order the branches are written — a guard
 * (`step.skipped`), then resolve -> check -> `step.allowed` — so each decision sees the ones
 * before it (the step limit, the spend cap with the calls in flight counted, a writ's shared
 * budget: two branches never both pass a cap only one fits). It commits every allow, then makes
 * the calls at the same time and records each outcome as it arrives; replaying, in the order the
 * record holds them (`Effects.nextOutcome`), calling nothing. A decision that ends the run (a
 * refusal) or holds it (an approval, a model outage) stops the deciding; the calls already allowed
 * still finish and are recorded, and only then is the run's end written (RunWriter `holdEnd`): a
 * run never finishes with a call of its own out. After a crash the fold holds every allow without
 * an outcome, and the walk settles them one by one (settle-in-flight.ts).
 *
 * The join (`parallel.joined`) is taken once every branch is done (`join: all`) or one is
 * (`join: first`): the branches finished, in the order they finished, and for `first` the
 * branches cut, whose steps not started never start. Nothing here decides from anything but the
 * run's own ledger, so a replay writes the same entries byte for byte.
 */
import type { PayloadOf } from '../core/ledger/index.ts';
import { doneIn, type ParallelNode, readyInLanes, type ToolNode } from '../core/run/index.ts';
import { decideCondition, stepConditionRoot } from '../core/spec/index.ts';
import type { StepOutcome } from './effects.ts';
import { callSignal, recordOutcome } from './record-outcome.ts';
import { type AllowedCall, allowToolStep } from './tool-step.ts';
import type { Flow, Walk } from './walk-context.ts';

/** The join of the parallel step named `name` in the walk's plan. */
function joinOf(walk: Walk, name: string): ParallelNode {
  const n = walk.plan.nodes.find((x) => x.kind === 'parallel' && x.id === name);
  if (!n) throw new Error(`parallel-step: no parallel named ${name} in the plan`);
  return n as ParallelNode;
}

/** A tool node: in a parallel branch, a round of that parallel; else the step alone. */
export async function walkLaneRound(walk: Walk, node: ToolNode): Promise<Flow> {
  const { w, fx, o, plan } = walk;
  const s = w.state;
  const join = joinOf(walk, node.lane!.parallel);
  const ready = readyInLanes(plan, join, doneIn(plan, s.completed, s.chosen, s.cut));
  const calls: AllowedCall[] = [];
  w.holdEnd();
  try {
    for (const n of ready) {
      // A decision before this one ended the run, or holds it (a person, a model outage).
      if (w.ending || s.approval || s.status !== 'running') break;
      if (n.guard !== undefined) {
        const d = decideCondition(n.guard, stepConditionRoot(s.event, s.outputs));
        if (!d.value) {
          w.add('step.skipped', { step: n.id, condition: n.guard, value: false, reads: d.reads });
          continue;
        }
      }
      const allowed = await allowToolStep(walk, n);
      if (typeof allowed !== 'string') calls.push(allowed);
    }
    if (calls.length === 0) return w.ending ? 'stop' : 'next';
    // Every allow is durable before any call is made.
    await w.commit();
    type Landed = { readonly call: AllowedCall; readonly outcome: StepOutcome };
    const pending = new Map<string, Promise<Landed>>();
    for (const call of calls)
      pending.set(
        call.a.step,
        fx.invoke(call.tool, call.a, s, callSignal(call.tool, o)).then((outcome) => ({ call, outcome })),
      );
    while (pending.size > 0) {
      // Replaying: the outcome the record holds next; live: whichever call answers first.
      const next = fx.nextOutcome?.(s);
      const landed = await (next !== undefined && pending.has(next)
        ? pending.get(next)!
        : Promise.race(pending.values()));
      pending.delete(landed.call.a.step);
      recordOutcome(walk, landed.call.tool, landed.call.a, landed.outcome);
    }
  } finally {
    // A call still in flight (its outcome unknown: replaying a crash) is settled by the walk
    // first, the end still held; it is written once none is out (walk.ts).
    w.settleEnd();
  }
  return s.finished ? 'stop' : 'next';
}

/** Records the join: the branches finished in the order they finished; `first` cuts the others. */
export async function walkJoin(walk: Walk, node: ParallelNode): Promise<Flow> {
  const s = walk.w.state;
  // The order steps were done in (a Set keeps insertion order): a branch finished with its last one.
  const order = new Map([...s.completed].map((name, i) => [name, i]));
  const finishedAt = (steps: readonly string[]) =>
    steps.every((x) => order.has(x)) ? Math.max(...steps.map((x) => order.get(x)!)) : undefined;
  const finished = Object.entries(node.lanes)
    .map(([branch, steps]) => ({ branch, at: finishedAt(steps) }))
    .filter((b): b is { branch: string; at: number } => b.at !== undefined)
    .sort((a, b) => a.at - b.at)
    .map((b) => b.branch);
  const p: PayloadOf<'parallel.joined'> = { step: node.id, join: node.join, finished };
  if (node.join === 'first') {
    const cut = Object.keys(node.lanes).filter((b) => !finished.includes(b));
    if (cut.length > 0) {
      p.cut = cut;
      const notRun = cut.flatMap((b) => node.lanes[b]!.filter((x) => !s.completed.has(x)));
      if (notRun.length > 0) p.notRun = notRun;
    }
  }
  walk.w.add('parallel.joined', p);
  return 'next';
}
