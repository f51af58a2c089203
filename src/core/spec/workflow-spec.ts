/**
 * The workflow spec: the declarative document a person approves and the engine walks.
 *
 * Owns the shapes only. Parsing, validation and hashing live beside it; nothing here reads files,
 * the clock or the environment, and nothing mutates a spec after validation built it.
 */

import type { ToolSchemas } from './check-tool-args.ts';
import type { FlowStep } from './flow-steps.ts';
import type { PromotionSpec, SimulationSpec, SpecTest } from './lifecycle-spec.ts';
import type { ScheduleSpec } from './schedule-trigger.ts';

export type { StepSpec } from './flow-steps.ts';

/** Lifecycle of a workflow, in promotion order. Changed by promotion, never part of the spec hash. */
export const WORKFLOW_STATUSES = ['DRAFT', 'TESTING', 'SHADOW', 'LIVE', 'AUTONOMOUS'] as const;
export type WorkflowStatus = (typeof WORKFLOW_STATUSES)[number];

/** Which canonical events start a run. `when` is condition source text (see `parseCondition`). */
export interface TriggerSpec {
  /** The event type; for a schedule trigger, always `schedule.fired` (set by validation). */
  event: string;
  when?: string;
  /**
   * The JSON Schema (draft 2020-12) of the event payloads this trigger expects: what `keel mcp`
   * offers an assistant as the workflow tool's input schema, and what it checks a call against.
   */
  payloadSchema?: Record<string, unknown>;
  /**
   * A schedule trigger (schedule-trigger.ts): the workflow starts on its own schedule's fires, and
   * nothing else; `when` and `payloadSchema` are then absent.
   */
  schedule?: ScheduleSpec;
}

export interface WorkflowLimits {
  maxSteps: number;
  /** Dollars with at most 2 decimals; the engine budgets in integer cents (`usdToCents`). */
  maxCostUsd: number;
}

export interface WorkflowSpec {
  id: string;
  version: number;
  status: WorkflowStatus;
  description?: string;
  triggers: TriggerSpec[];
  /** The step list: tool steps and control flow (flow-steps.ts), nested lists included. */
  steps: FlowStep[];
  limits: WorkflowLimits;
  /** Allow-list of environment variable names templates may read as `env.NAME`. */
  env?: string[];
  /**
   * What a run's inputs (`event.payload.inputs`) start from, before the caller's inputs overlay
   * them. OpenWOP variables' defaults compile to this; the OpenWOP host applies it when it creates
   * a run. Part of the approved document (and of the spec hash).
   */
  inputDefaults?: Record<string, unknown>;
  /** Named events with expectations, run in simulated mode by `keel test` (lifecycle-spec.ts). */
  tests?: SpecTest[];
  /** Gate thresholds for promoting this workflow; each counts only where stricter than the tenant's. */
  promotion?: PromotionSpec;
  /** How simulated runs (tests, shadows) treat read tools. */
  simulation?: SimulationSpec;
}

/** Options shared by `parseSpec` and `validateSpec`. */
export interface SpecOptions {
  /** When given, a step whose tool this rejects is a problem on `steps[i].tool`. */
  knownTool?: (name: string) => boolean;
  /**
   * When given, a tool's argument schema (and result schema, if it declares one): each step's
   * literal arguments, required arguments and templates of known type are checked against it
   * (check-tool-args.ts); what cannot fit is a problem on `steps[i].args.<field>`.
   */
  describeTool?: (name: string) => ToolSchemas | undefined;
  /**
   * When given, asked about each model slot (`{"$model": {prompt, schema}}`, see model-slots.ts);
   * a message it returns is a problem on `steps[i].args.<arg>` (e.g. no model provider configured).
   */
  checkModelSlot?: (slot: {
    arg: string;
    prompt: string;
    schema: Readonly<Record<string, unknown>>;
  }) => string | undefined;
  /**
   * Which env names hold secrets (recorded as a keyed hash, never in clear); `SECRET_ENV` by
   * default. A secret may only be a whole argument value, never part of a text.
   */
  isSecretEnv?: (name: string) => boolean;
}

export function isWorkflowStatus(s: unknown): s is WorkflowStatus {
  return typeof s === 'string' && (WORKFLOW_STATUSES as readonly string[]).includes(s);
}
