/**
 * The branch family of ledger entries: what the declared control flow decided, when it decided.
 * `step.skipped` — a tool step whose `if:` was false: the condition's source text, its value, and
 * what it read. `branch.chosen` — a choice (`choose:`) took a branch: its index, or "else" when no
 * branch's `when` held; the chosen branch's condition; what the conditions it evaluated read. The
 * steps of the branches not taken are not written one by one: the plan counts them as done once
 * the choice is recorded. `reads` maps each path a condition read (`payload.amount`,
 * `steps.lookup.output.tier`) to the value read, missing as null, so verify can decide the same
 * condition again from the record and check each value against the run's own event and outputs.
 * `parallel.joined` — a parallel step's branches joined: the rule, the branches done in the order
 * they finished, and (join: first) the branches it cut and their steps that never started; the
 * plan counts those as done, and the step after the parallel runs next.
 *
 * Part of the ledger's schema (entry-kinds.ts): adding a required field changes what old ledgers
 * verify against; add optional fields instead.
 */
import type { Shape } from './entry-shape.ts';

/** The branch a choice took: its index in `choose:`, from 0, or `else`. */
export type ChosenBranch = number | 'else';

/** The payloads of the branch entries, by kind. */
export interface BranchPayloads {
  'step.skipped': {
    step: string;
    /** The step's `if:`, as written. */
    condition: string;
    value: false;
    reads: Record<string, unknown>;
  };
  'branch.chosen': {
    step: string;
    branch: ChosenBranch;
    /** The chosen branch's `when:` (absent for else). */
    when?: string;
    /** What every condition evaluated to reach the choice read (those that were false, then the true one). */
    reads: Record<string, unknown>;
  };
  'parallel.joined': {
    step: string;
    join: 'all' | 'first';
    /** The branches done, in the order their last step's outcome (or skip) was recorded. */
    finished: string[];
    /** join: first — the branches that had not finished: none of their steps starts after this. */
    cut?: string[];
    /** The steps of the cut branches that never started, in plan order. */
    notRun?: string[];
  };
}

export const BRANCH_SHAPES: { readonly [K in keyof BranchPayloads]: Shape } = {
  'step.skipped': { step: 'string', condition: 'string', value: 'boolean', reads: 'object' },
  'branch.chosen': { step: 'string', branch: 'any', when: 'string?', reads: 'object' },
  'parallel.joined': {
    step: 'string',
    join: ['all', 'first'],
    finished: 'array',
    cut: 'array?',
    notRun: 'array?',
  },
};

/** What the shapes cannot say: a skip records false; a branch is an index or "else". */
export function branchProblem(kind: string, p: Record<string, unknown>): string | undefined {
  if (kind === 'step.skipped' && p.value !== false)
    return 'value is not false: a skipped step’s if was false';
  if (kind === 'parallel.joined') return joinProblem(p);
  if (kind !== 'branch.chosen') return undefined;
  const b = p.branch;
  if (b === 'else') return p.when === undefined ? undefined : 'an else branch has no when';
  if (typeof b !== 'number' || !Number.isSafeInteger(b) || b < 0)
    return `branch is ${JSON.stringify(b)}, not a branch index (0, 1, …) or "else"`;
  return p.when === undefined ? 'when is missing' : undefined;
}

const strings = (v: unknown) =>
  v === undefined || (Array.isArray(v) && v.every((x) => typeof x === 'string'));

/** A join names branches by name; all never cuts, first finishes one branch at least. */
function joinProblem(p: Record<string, unknown>): string | undefined {
  for (const k of ['finished', 'cut', 'notRun']) if (!strings(p[k])) return `${k} is not a list of names`;
  if ((p.finished as string[]).length === 0) return 'finished is empty: a join follows a finished branch';
  if (p.join === 'all' && (p.cut !== undefined || p.notRun !== undefined))
    return 'a join: all cuts no branch';
  return undefined;
}
