/**
 * Loading a plan module (`*.plan.ts`) into a validated workflow spec.
 *
 * Owns the one path from a file to a spec: read the text once, run the determinism check on that
 * exact text (any finding refuses it: the module never loads), transpile it, evaluate it in the
 * sandbox, validate the default export with `validateSpec`. The same file always yields the same
 * spec and spec hash. Never publishes; `workflows.publishPlan` does that with the result.
 */
import type { Digest } from '../core/canonical/index.ts';
import { type SpecOptions, specHash, validateSpec, type WorkflowSpec } from '../core/spec/index.ts';
import { checkPlanSources, readPlanText } from './check-plan.ts';
import { evaluatePlanModule } from './evaluate-plan.ts';
import { determinismError } from './plan-finding.ts';
import type { SandboxLimits } from './plan-sandbox.ts';
import { transpilePlan } from './transpile-plan.ts';

export interface LoadedPlan {
  readonly spec: WorkflowSpec;
  readonly specHash: Digest;
}

export interface LoadPlanOptions extends SpecOptions {
  /** Overrides the sandbox limits (tests use small ones). */
  readonly limits?: SandboxLimits;
}

/** Reads, checks, evaluates and validates the plan module at `path`. */
export async function loadPlanModule(path: string, options: LoadPlanOptions = {}): Promise<LoadedPlan> {
  return loadPlanSource(readPlanText(path), path, options);
}

/** The same, for a text already in memory; `file` names it in every message. */
export async function loadPlanSource(
  text: string,
  file: string,
  options: LoadPlanOptions = {},
): Promise<LoadedPlan> {
  const { findings } = checkPlanSources([{ path: file, text }]);
  if (findings.length > 0) throw determinismError(findings);
  const value = await evaluatePlanModule(transpilePlan(text, file), file, options.limits);
  const spec = validateSpec(value, file, {
    ...(options.knownTool ? { knownTool: options.knownTool } : {}),
    ...(options.describeTool ? { describeTool: options.describeTool } : {}),
  });
  return { spec, specHash: specHash(spec) };
}
