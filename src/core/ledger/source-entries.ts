/**
 * The source family of ledger entries: `source.drawn`, a value read from a declared source of
 * nondeterminism (clock, random, id, env, a model) at the point the run read it, so replay serves
 * it instead of drawing again; a model's draw carries what it cost.
 *
 * Part of the ledger's schema (entry-kinds.ts): adding a required field changes what old ledgers
 * verify against; add optional fields instead.
 */
import type { Shape } from './entry-shape.ts';

/**
 * What an `x-model` draw cost and how it went (docs/models.md): the provider and model asked, the
 * tokens of every attempt together, the price in integer micro-dollars (counted against the
 * spec's `maxCostUsd`), and how many attempts it took. `invalid` is set when no attempt fit the
 * slot schema: the last raw answer (bounded) and why; the step is then refused.
 */
export interface ModelCallEntry {
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costMicroUsd: number;
  attempts: number;
  invalid?: { raw: string; problem: string };
}

/** The declared sources a `source.drawn` entry may name. Widen only: old ledgers must still verify. */
export const DRAWN_SOURCES = ['clock', 'random', 'id', 'env', 'x-model'] as const;
export type DrawnSource = (typeof DRAWN_SOURCES)[number];

/** The payloads of the source entries, by kind. */
export interface SourcePayloads {
  /** `x-model`: a model's value for the open argument slot `name` (see docs/planner.md). */
  'source.drawn': { source: DrawnSource; name?: string; value: unknown; model?: ModelCallEntry };
}

export const SOURCE_SHAPES: { readonly [K in keyof SourcePayloads]: Shape } = {
  'source.drawn': { source: DRAWN_SOURCES, name: 'string?', value: 'any', model: 'object?' },
};
