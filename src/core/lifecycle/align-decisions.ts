/**
 * Lines up what two runs decided by behaviour, never by step name: a decision of one run is paired
 * with the decision of the other that does the same thing (the same tool, with the same
 * arguments, ending the same way, with the same need for a person), and what is left between two
 * such anchors is paired by tool, then by position. What has no partner is missing from one run.
 * So a step renamed in a new version still pairs with its old self, and one step inserted
 * or removed does not shift every decision after it out of line.
 *
 * Pure: two sequences in, pairs in order out. It only pairs; judging a pair is compare-runs.ts's.
 */
import type { StepDecision } from './run-decisions.ts';

/** Two decisions lined up: `live` only, `candidate` only, or both. */
export interface AlignedDecisions {
  readonly live?: StepDecision;
  readonly candidate?: StepDecision;
}

/** What a decision does, its step name aside. */
export function behaviourKey(d: StepDecision): string {
  return JSON.stringify([d.tool, d.argsHash, d.outcome, d.code ?? null, d.approval]);
}

const toolKey = (d: StepDecision) => d.tool;

/** The pairs of `live` and `candidate` decisions, in the order the runs made them. */
export function alignDecisions(
  live: readonly StepDecision[],
  candidate: readonly StepDecision[],
): AlignedDecisions[] {
  return align(live, candidate, [behaviourKey, toolKey]);
}

function align(
  a: readonly StepDecision[],
  b: readonly StepDecision[],
  keys: readonly ((d: StepDecision) => string)[],
): AlignedDecisions[] {
  const [key, ...rest] = keys;
  if (!key) {
    const out: AlignedDecisions[] = [];
    for (let i = 0; i < Math.max(a.length, b.length); i++)
      out.push({ ...(a[i] ? { live: a[i] } : {}), ...(b[i] ? { candidate: b[i] } : {}) });
    return out;
  }
  const out: AlignedDecisions[] = [];
  let i = 0;
  let j = 0;
  for (const [x, y] of commonSubsequence(a.map(key), b.map(key))) {
    out.push(...align(a.slice(i, x), b.slice(j, y), rest), { live: a[x]!, candidate: b[y]! });
    i = x + 1;
    j = y + 1;
  }
  out.push(...align(a.slice(i), b.slice(j), rest));
  return out;
}

/**
 * Index pairs of a longest common subsequence of `a` and `b`, ascending. The common prefix and
 * suffix are taken first, so two runs that agree cost a linear pass.
 */
function commonSubsequence(a: readonly string[], b: readonly string[]): [number, number][] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const head: [number, number][] = Array.from({ length: start }, (_, k) => [k, k]);
  const tail: [number, number][] = Array.from({ length: a.length - endA }, (_, k) => [endA + k, endB + k]);
  const n = endA - start;
  const m = endB - start;
  if (n === 0 || m === 0) return [...head, ...tail];
  // lengths[i][j]: the LCS length of a[start+i..endA) and b[start+j..endB).
  const lengths = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let x = n - 1; x >= 0; x--)
    for (let y = m - 1; y >= 0; y--)
      lengths[x]![y] =
        a[start + x] === b[start + y]
          ? lengths[x + 1]![y + 1]! + 1
          : Math.max(lengths[x + 1]![y]!, lengths[x]![y + 1]!);
  const middle: [number, number][] = [];
  for (let x = 0, y = 0; x < n && y < m; ) {
    if (a[start + x] === b[start + y]) {
      middle.push([start + x, start + y]);
      x++;
      y++;
    } else if (lengths[x + 1]![y]! >= lengths[x]![y + 1]!) x++;
    else y++;
  }
  return [...head, ...middle, ...tail];
}
