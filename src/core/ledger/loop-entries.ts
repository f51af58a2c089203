/**
 * The loop family of ledger entries: a bounded iteration (`forEach:`) reached. `foreach.started`
 * records the list the loop runs over, resolved (`items`), and how many iterations that makes
 * (`count`, never more than the loop's `max`), so a replay, a fork, recovery and verify need
 * nothing else to know which steps the loop runs: each iteration's steps are recorded as any tool
 * step, under their own names (`refund_lines[0].refund`). A list longer than `max` records no
 * `foreach.started`: the run finishes failed before any of the loop's calls.
 *
 * Part of the ledger's schema (entry-kinds.ts): adding a required field changes what old ledgers
 * verify against; add optional fields instead.
 */
import type { Shape } from './entry-shape.ts';

/** The payloads of the loop entries, by kind. */
export interface LoopPayloads {
  'foreach.started': {
    /** The loop step. */
    step: string;
    /** How many iterations: the length of `items`. */
    count: number;
    /** The list the loop's `items` template resolved to, as resolved. */
    items: unknown[];
  };
}

export const LOOP_SHAPES: { readonly [K in keyof LoopPayloads]: Shape } = {
  'foreach.started': { step: 'string', count: 'number', items: 'array' },
};

/** What the shape cannot say: the count is the list's length. */
export function loopProblem(p: Record<string, unknown>): string | undefined {
  const n = p.count;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
    return `count is ${JSON.stringify(n)}, not a count`;
  return Array.isArray(p.items) && p.items.length === n
    ? undefined
    : `count is ${n}, but items holds ${Array.isArray(p.items) ? p.items.length : 0}`;
}
