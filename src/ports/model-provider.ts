/**
 * A language model, as the engine may use one: a prompt and the JSON Schema of the value wanted in,
 * a value out. Vendor-neutral and small on purpose. The engine never calls a provider from a walk
 * directly: it sits behind the live effects, which ledger each value (source `x-model`) before it is
 * used, so replay and replay forks serve the record and never call the provider again.
 */
import type { JsonSchema } from '../core/tools/index.ts';

/** What a planner may know about a tool: never its handler, reconcile check or anything that acts. */
export interface CatalogTool {
  readonly name: string;
  readonly description: string;
  readonly args: JsonSchema;
}

export interface ModelRequest {
  /** The slot's prompt, its templates resolved. */
  readonly prompt: string;
  /** The JSON Schema the answer must satisfy (the engine validates it; a provider may use it to constrain output). */
  readonly schema: JsonSchema;
  /** The read-only tool catalog. */
  readonly catalog: readonly CatalogTool[];
  /** Set when asking again: the previous raw answer and why it did not fit the schema. */
  readonly retry?: { readonly raw: string; readonly problem: string };
}

/** What one call to a metered model cost: tokens as the provider counted them, price in micro-dollars. */
export interface ModelUsage {
  readonly provider: string;
  readonly model: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costMicroUsd: number;
}

/** One answer of a metered model: its raw text, the value parsed from it (absent: not JSON), its usage. */
export interface ModelAnswer {
  readonly raw: string;
  readonly value?: unknown;
  /** Why there is no value (the raw text is not the JSON asked for). */
  readonly problem?: string;
  readonly usage: ModelUsage;
}

export interface ModelProvider {
  /** A JSON value for the request. Throwing is failed I/O: the step is not decided and the run may be resumed. */
  complete(request: ModelRequest): Promise<unknown>;
  /**
   * The same call with its raw answer and usage, for providers that meter: the live effects then
   * check the value against the schema, ask again a bounded number of times, and ledger the usage.
   */
  answer?(request: ModelRequest): Promise<ModelAnswer>;
}
