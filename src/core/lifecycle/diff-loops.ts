/**
 * What changed in a workflow's loops (`forEach:`) between two versions, for `keel diff`: a loop
 * added or gone, another list to run over (`items`), another most (`max`), each a behaviour change;
 * an `items` template spaced otherwise or naming a renamed step is not one, and neither is the item
 * renamed (`as`) by itself (the body's arguments that read it are compared as arguments). A step
 * moved into or out of a loop is diff-flow.ts's. Pure: two specs in, changes out.
 */
import { type ForEachSpec, isLoopStep, sameArgs, type WorkflowSpec, walkSteps } from '../spec/index.ts';

/** One change, as diff-flow.ts reports it (structurally its FlowChange). */
export interface LoopChange {
  readonly text: string;
  readonly behaviour: boolean;
}

function loops(spec: WorkflowSpec): Map<string, ForEachSpec> {
  const out = new Map<string, ForEachSpec>();
  walkSteps(spec, (s) => {
    if (isLoopStep(s)) out.set(s.name, s.forEach);
  });
  return out;
}

/** The loop changes from `a` to `b`; `newName` maps a step renamed in `b` to its new name. */
export function diffLoops(a: WorkflowSpec, b: WorkflowSpec, newName: (n: string) => string): LoopChange[] {
  const out: LoopChange[] = [];
  const add = (text: string, behaviour = true) => out.push({ text, behaviour });
  const la = new Map([...loops(a)].map(([n, l]) => [newName(n), l]));
  const lb = loops(b);
  for (const [name, now] of lb) {
    const was = la.get(name);
    if (!was) {
      add(`New loop ${name}: its steps run once for each ${now.as} of ${now.items}, at most ${now.max}.`);
      continue;
    }
    if (was.items !== now.items) {
      if (sameArgs(was.items, now.items, newName))
        add(
          `The list loop ${name} runs over is written differently — ${JSON.stringify(now.items)}, was ${JSON.stringify(was.items)} — with the same meaning: not a behaviour change.`,
          false,
        );
      else add(`Loop ${name} now runs over ${now.items} (was ${was.items}).`);
    }
    if (was.max !== now.max)
      add(
        `Loop ${name} now takes at most ${now.max} items (was ${was.max}): a list of ${Math.min(was.max, now.max) + 1} to ${Math.max(was.max, now.max)} items ${now.max > was.max ? 'now runs where it failed the run' : 'now fails the run where it ran'}.`,
      );
    if (was.as !== now.as)
      add(`Loop ${name} names its item ${now.as} (was ${was.as}): not a behaviour change by itself.`, false);
  }
  for (const name of la.keys())
    if (!lb.has(name)) add(`Loop ${name} is gone: its steps no longer run per item.`);
  return out;
}
