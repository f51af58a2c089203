/**
 * The walkers of the declared control flow (walk.ts `NODE_KINDS`): a choice (`choose:`) and a tool
 * step guarded by `if:`. Each decides from the run's own values only (its event, and the outputs
 * of steps completed so far, as the fold holds them), so a replay or a fork decides exactly the
 * same and writes the same entry: `branch.chosen` (the branch taken, the condition that held, what
 * every condition evaluated read) or `step.skipped` (the guard was false: the step calls nothing).
 * A guard that holds writes nothing of its own: the step runs as any tool step.
 */
import type { ChosenBranch } from '../core/ledger/index.ts';
import type { ChooseNode, ToolNode } from '../core/run/index.ts';
import { type ConditionReads, decideCondition, stepConditionRoot } from '../core/spec/index.ts';
import { walkToolStep } from './tool-step.ts';
import type { Flow, Walk } from './walk-context.ts';

/** Decides a choice: the first branch whose `when` holds, else `else`; records it and goes on. */
export async function walkChoose(walk: Walk, node: ChooseNode): Promise<Flow> {
  const s = walk.w.state;
  const root = stepConditionRoot(s.event, s.outputs);
  const reads: ConditionReads = {};
  let branch: ChosenBranch = 'else';
  for (const [j, b] of node.step.choose.entries()) {
    const d = decideCondition(b.when, root);
    Object.assign(reads, d.reads);
    if (d.value) {
      branch = j;
      break;
    }
  }
  walk.w.add(
    'branch.chosen',
    branch === 'else'
      ? { step: node.id, branch, reads }
      : { step: node.id, branch, when: node.step.choose[branch]!.when, reads },
  );
  return 'next';
}

/** A tool step: its guard decided first (false: `step.skipped`), then the step as any other. */
export async function walkGuardedTool(walk: Walk, node: ToolNode): Promise<Flow> {
  if (node.guard === undefined) return walkToolStep(walk, node);
  const s = walk.w.state;
  const d = decideCondition(node.guard, stepConditionRoot(s.event, s.outputs));
  if (d.value) return walkToolStep(walk, node);
  walk.w.add('step.skipped', { step: node.id, condition: node.guard, value: false, reads: d.reads });
  return 'next';
}
