/**
 * `defineWorkflow`: the typed builder a plan module (`*.plan.ts`) exports its spec through.
 *
 * An identity function: it exists so authors get the `WorkflowSpec` type checked in their editor.
 * It must never compute, read or add anything: inside the sandbox Keel injects its own identical
 * copy, and the spec it returns is validated by `validateSpec` like any YAML spec.
 */
// The shapes file directly, not core/spec/index.ts: `keel check` type-checks every plan module
// against this file's imports, and the index would pull all of core/spec and yaml's typings in.
import type { WorkflowSpec } from '../core/spec/workflow-spec.ts';

export type {
  StepSpec,
  TriggerSpec,
  WorkflowLimits,
  WorkflowSpec,
  WorkflowStatus,
} from '../core/spec/workflow-spec.ts';

/** `export default defineWorkflow({ id, version, status: 'DRAFT', triggers, steps, limits })`. */
export function defineWorkflow(spec: WorkflowSpec): WorkflowSpec {
  return spec;
}
