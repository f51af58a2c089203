/**
 * What changed in a workflow's control flow between two versions, for `keel diff`: a condition on
 * a step added, removed or changed (`if:`), a choice added or gone, a branch added, removed or
 * with another condition, an else added or dropped, a step moved into or out of a branch or a
 * loop, a wait added, gone or changed (diff-waits.ts), a parallel added or gone, joining
 * otherwise, or with a branch added or removed, a loop added, gone or changed (diff-loops.ts).
 * Each is
 * a behaviour change, except a condition written differently with the same meaning (conditions
 * compare by their normal form, normalize-condition.ts). Pure: two specs in, changes out.
 */
import {
  type ChooseStepSpec,
  type FlowStep,
  isChooseStep,
  isLoopStep,
  isParallelStep,
  isToolStep,
  nestedLists,
  type ParallelStepSpec,
  parseStepCondition,
  sameCondition,
  type WorkflowSpec,
  walkSteps,
} from '../spec/index.ts';
import { diffApprovalDeadlines } from './diff-approval-deadlines.ts';
import { diffLoops } from './diff-loops.ts';
import { diffWaits } from './diff-waits.ts';

export interface FlowChange {
  readonly text: string;
  readonly behaviour: boolean;
}

const json = (v: unknown) => JSON.stringify(v);
const same = (x: string, y: string) => sameCondition(x, y, parseStepCondition);

/** Where each step sits: "at the top level", or "in branch 2 of route" / "in the else of route". */
function places(spec: WorkflowSpec): Map<string, string> {
  const out = new Map<string, string>();
  const go = (steps: readonly FlowStep[], where: string) => {
    for (const s of steps) {
      out.set(s.name, where);
      for (const n of nestedLists(s))
        go(
          n.steps,
          isLoopStep(s)
            ? `in the loop ${s.name}`
            : n.at[0] === 'else'
              ? `in the else of ${s.name}`
              : n.at[0] === 'parallel'
                ? `in branch ${n.at[2]} of parallel ${s.name}`
                : `in branch ${Number(n.at[1]) + 1} of ${s.name}`,
        );
    }
  };
  go(spec.steps, 'at the top level');
  return out;
}

function choices(spec: WorkflowSpec): Map<string, ChooseStepSpec> {
  const out = new Map<string, ChooseStepSpec>();
  walkSteps(spec, (s) => {
    if (isChooseStep(s)) out.set(s.name, s);
  });
  return out;
}

function guards(spec: WorkflowSpec): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  walkSteps(spec, (s) => {
    if (isToolStep(s)) out.set(s.name, s.if);
  });
  return out;
}

/** The control-flow changes from `a` to `b`; `newName` maps a step renamed in `b` to its new name. */
export function diffFlow(a: WorkflowSpec, b: WorkflowSpec, newName: (n: string) => string): FlowChange[] {
  const out: FlowChange[] = [];
  const add = (text: string, behaviour = true) => out.push({ text, behaviour });
  const ga = new Map([...guards(a)].map(([n, g]) => [newName(n), g]));
  for (const [name, now] of guards(b)) {
    if (!ga.has(name)) continue;
    const was = ga.get(name);
    if (was === now) continue;
    if (was === undefined) add(`Step ${name} now runs only if ${now}; otherwise it is skipped.`);
    else if (now === undefined)
      add(`Step ${name} no longer has a condition (was: only if ${was}): it always runs.`);
    else if (same(was, now))
      add(
        `The condition of step ${name} is written differently — ${json(now)}, was ${json(was)} — with the same meaning: not a behaviour change.`,
        false,
      );
    else add(`The condition of step ${name} changes: it runs only if ${now}, where it ran only if ${was}.`);
  }
  const ca = new Map([...choices(a)].map(([n, c]) => [newName(n), c]));
  const cb = choices(b);
  for (const [name, c] of cb) {
    const old = ca.get(name);
    if (!old) {
      add(
        `New choice ${name}: ${c.choose.map((x) => `if ${x.when}`).join('; otherwise ')}${c.else ? '; otherwise the else' : ''}.`,
      );
      continue;
    }
    const n = Math.max(old.choose.length, c.choose.length);
    for (let j = 0; j < n; j++) {
      const x = old.choose[j];
      const y = c.choose[j];
      if (!x) add(`Choice ${name} has a new branch ${j + 1}: if ${y!.when}.`);
      else if (!y) add(`Branch ${j + 1} of choice ${name} (if ${x.when}) is gone.`);
      else if (x.when !== y.when) {
        if (same(x.when, y.when))
          add(
            `The condition of branch ${j + 1} of ${name} is written differently — ${json(y.when)}, was ${json(x.when)} — with the same meaning: not a behaviour change.`,
            false,
          );
        else add(`Branch ${j + 1} of choice ${name} is now taken if ${y.when} (was if ${x.when}).`);
      }
    }
    const hadElse = (old.else ?? []).length > 0;
    const hasElse = (c.else ?? []).length > 0;
    if (hadElse !== hasElse)
      add(
        hasElse
          ? `Choice ${name} now has an else: it runs when no branch holds.`
          : `Choice ${name} no longer has an else: when no branch holds, nothing runs.`,
      );
  }
  for (const name of ca.keys()) if (!cb.has(name)) add(`Choice ${name} is gone.`);
  diffParallels(a, b, newName, add);
  const pa = new Map([...places(a)].map(([n, p]) => [newName(n), p]));
  for (const [name, now] of places(b)) {
    const was = pa.get(name);
    if (was !== undefined && was !== now && !cb.has(name)) add(`Step ${name} now runs ${now} (was ${was}).`);
  }
  out.push(...diffWaits(a, b, newName), ...diffLoops(a, b, newName));
  out.push(...diffApprovalDeadlines(a, b, newName));
  return out;
}

function parallels(spec: WorkflowSpec): Map<string, ParallelStepSpec> {
  const out = new Map<string, ParallelStepSpec>();
  walkSteps(spec, (s) => {
    if (isParallelStep(s)) out.set(s.name, s);
  });
  return out;
}

/** Parallels added or gone, joining otherwise, with a branch added or removed. */
function diffParallels(
  a: WorkflowSpec,
  b: WorkflowSpec,
  newName: (n: string) => string,
  add: (text: string) => void,
): void {
  const pa = new Map([...parallels(a)].map(([n, p]) => [newName(n), p]));
  const pb = parallels(b);
  for (const [name, p] of pb) {
    const old = pa.get(name);
    const names = Object.keys(p.parallel.branches);
    if (!old) {
      add(
        `New parallel ${name}: branches ${names.join(', ')} run at the same time, joining ${p.parallel.join}.`,
      );
      continue;
    }
    if (old.parallel.join !== p.parallel.join)
      add(
        `Parallel ${name} now joins ${p.parallel.join} (was ${old.parallel.join}): ${p.parallel.join === 'first' ? 'the step after it runs once one branch finishes, and the others are cut' : 'the step after it waits for every branch'}.`,
      );
    const was = Object.keys(old.parallel.branches);
    for (const x of names) if (!was.includes(x)) add(`Parallel ${name} has a new branch ${x}.`);
    for (const x of was) if (!names.includes(x)) add(`Branch ${x} of parallel ${name} is gone.`);
  }
  for (const name of pa.keys())
    if (!pb.has(name)) add(`Parallel ${name} is gone: its steps no longer run at the same time.`);
}
