/**
 * The walk: one run's plan, node by node, until the run finishes, waits for a person, or cannot
 * safely continue; it commits what it wrote. Each pass of its loop is one step boundary and one
 * phase:
 *
 * 1. the boundary (step-boundary.ts): a cancellation finishes the run, a caller may stop the walk,
 *    recorded pauses are written again when replaying, a paused run stops;
 * 2. an in-flight step (an allow without an outcome: the effect may have happened before a crash)
 *    is settled first, never blindly repeated (settle-in-flight.ts), or the run is suspended;
 *    parallel branches may leave several, settled one by one in the order they were allowed;
 * 3. a run waiting for a person stays waiting, or goes on with the decision (tool-step.ts
 *    `approvalAt`): an approved proposal is acted on, a denied one refused;
 * 4. otherwise the plan's next node is taken by the walker of its kind (`NODE_KINDS`): a tool
 *    step — its guard (`if:`) decided, then resolve -> check -> record the decision -> execute ->
 *    record the outcome (tool-step.ts) — a choice, its branch decided and recorded
 *    (choose-step.ts), a wait — record when it fires, stop until then, record its end
 *    (wait-step.ts) — a step of a parallel branch, taken in a round with the ready steps of the
 *    other branches (decided one by one, the calls made at the same time), a parallel's join
 *    (parallel-step.ts), or a loop, its list resolved and recorded, its body's steps then in the
 *    plan once per item (foreach-step.ts); with no node left, the run completes.
 *
 * The walk reads sources, tool outcomes, approvals and timestamps only through `Effects`, so the
 * same walk runs live, as a replay, as a fork and simulated; everything it decides is an entry,
 * added through the run's writer, in the ledger before anything relies on it.
 */
import { nextNode, type PlanNode } from '../core/run/index.ts';
import type { VersionRecord } from '../ports/index.ts';
import { walkChoose, walkGuardedTool } from './choose-step.ts';
import type { Effects } from './effects.ts';
import { walkForEach } from './foreach-step.ts';
import { walkJoin, walkLaneRound } from './parallel-step.ts';
import type { RunWriter } from './run-writer.ts';
import { settleInFlight } from './settle-in-flight.ts';
import { finishIfCancelled, stopsAtBoundary } from './step-boundary.ts';
import type { ToolRegistry } from './tool-registry.ts';
import { approvalAt, walkToolStep } from './tool-step.ts';
import { walkWaitStep } from './wait-step.ts';
import { type Flow, type Walk, type WalkOptions, walkOf } from './walk-context.ts';

export { MAX_STEPS_PER_RUN, type WalkOptions } from './walk-context.ts';

/**
 * How the walk takes each kind of plan node (core/run/execution-plan.ts): the seam where a new kind
 * plugs in — a condition, a wait or timer, an event to wait for, parallel branches, a bounded
 * iteration. A node walker takes one node at a step boundary; it writes what it decides through
 * the run's writer (an entry, recorded before anything relies on it, and served from the record
 * when replaying), and says where the walk goes: `next` (back to the boundary: the node is done,
 * or the run now waits or is suspended, which the boundary and the fold see) or `stop`. A kind
 * added to `PlanNode` without a walker here does not compile.
 */
const NODE_KINDS: {
  readonly [K in PlanNode['kind']]: (walk: Walk, node: Extract<PlanNode, { kind: K }>) => Promise<Flow>;
} = {
  tool: (walk, node) => (node.lane ? walkLaneRound(walk, node) : walkGuardedTool(walk, node)),
  choose: walkChoose,
  wait: walkWaitStep,
  parallel: walkJoin,
  foreach: walkForEach,
};

/** Walks until the run finishes, waits for a person, or cannot safely continue; commits what it wrote. */
export async function walkRun(
  w: RunWriter,
  version: VersionRecord,
  tools: ToolRegistry,
  fx: Effects,
  o: WalkOptions = {},
): Promise<void> {
  const walk = walkOf(w, version, tools, fx, o);
  const s = w.state;
  const parallel = walk.plan.nodes.some((n) => n.kind === 'parallel');
  while (!s.finished) {
    // An end decided in a parallel round and held while calls were out: written once none is;
    // until then nothing at the boundary (a pause, a cancellation) replaces it.
    if (w.ending && s.flying.size === 0) {
      w.releaseEnd();
      break;
    }
    if (!w.ending && stopsAtBoundary(walk)) break;
    // A step of a parallel branch failed or was refused: the run ends once nothing is in flight
    // (parallel-step.ts holds the end; after a crash in between, the fold still says it).
    if (parallel && s.ending && s.flying.size === 0) {
      w.add('run.finished', { status: s.ending.status, outputs: s.outputs, reason: s.ending.reason });
      break;
    }
    if (s.inFlight) {
      // Several calls in flight (parallel branches, after a crash): an end one of them brings is
      // written only once every one is settled, from the fold's `ending`.
      const several = s.flying.size > 1 || (parallel && s.ending !== undefined) || w.ending;
      if (several) w.holdEnd();
      const settled = await settleInFlight(walk, s.inFlight);
      if (several) w.settleEnd();
      if (settled) continue;
      // Suspended: a cancellation recorded (or asked for) meanwhile still finishes the run.
      finishIfCancelled(w, fx, o);
      break;
    }
    let flow: Flow;
    if (s.approval) flow = approvalAt(walk) ?? (await walkToolStep(walk, undefined));
    else {
      const node = nextNode(walk.plan, s.completed, s.chosen, s.cut);
      if (!node) {
        w.add('run.finished', { status: 'completed', outputs: s.outputs });
        break;
      }
      // The table is typed by kind, so each walker gets the node of its own kind.
      flow = await (NODE_KINDS[node.kind] as (walk: Walk, node: PlanNode) => Promise<Flow>)(walk, node);
    }
    if (flow === 'stop') break;
  }
  await w.commit();
}
