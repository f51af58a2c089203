/**
 * The Planner port: cognition, isolated. A planner sees a read-only view of the run at one step —
 * the spec step, its open argument slots, the event, earlier steps' outputs, the tool catalog —
 * and returns values for the open slots, nothing else. It never gets a tool handler, the store, the
 * ledger or a way to mint writs; control flow (which step, which tool, the other arguments) stays
 * in the spec. The engine validates what it returns (slot schema, then the normal proposal checks).
 */
import type { EventRecord } from '../core/ledger/index.ts';
import type { JsonSchema } from '../core/tools/index.ts';
import type { CatalogTool } from './model-provider.ts';

/** An argument the spec leaves open for a model (`{"$model": {prompt, schema}}`). */
export interface OpenSlot {
  /** The top-level argument name. */
  readonly arg: string;
  /** The slot's prompt with its templates resolved. */
  readonly prompt: string;
  /** The JSON Schema the slot's value must satisfy (the tool's argument schema applies too). */
  readonly schema: JsonSchema;
}

/**
 * The model, as a planner may ask it: only about an open slot of this step, by name. The engine
 * draws the answer as source `x-model` — live from the provider, replaying from the ledger — and
 * ledgers it before it returns it.
 */
export interface ModelAccess {
  complete(slot: string): Promise<unknown>;
}

export interface PlannerView {
  readonly runId: string;
  readonly tenant: string;
  /** The spec's step: name, tool and argument templates (slots included), as written. */
  readonly step: {
    readonly name: string;
    readonly tool: string;
    readonly args: Readonly<Record<string, unknown>>;
  };
  readonly slots: readonly OpenSlot[];
  readonly event: EventRecord;
  /** Outputs of the steps completed so far, by step name. */
  readonly outputs: Readonly<Record<string, unknown>>;
  readonly catalog: readonly CatalogTool[];
  /** Absent when no model provider is configured (and nothing is being replayed). */
  readonly model?: ModelAccess;
}

export interface Planner {
  readonly name: string;
  /**
   * Values for (some of) the open slots, by argument name. A slot left out is refused as
   * `slot_unfilled`; a key that is not an open slot is refused as `slot_not_open`.
   */
  fill(view: PlannerView): Promise<Readonly<Record<string, unknown>>>;
}
