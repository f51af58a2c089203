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
}

export interface ModelProvider {
  /** A JSON value for the request. Throwing is failed I/O: the step is not decided and the run may be resumed. */
  complete(request: ModelRequest): Promise<unknown>;
}
