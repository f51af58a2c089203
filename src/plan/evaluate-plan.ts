/**
 * Evaluating transpiled plan-module JavaScript in the sandbox and taking its default export out
 * as JSON.
 *
 * Owns the order (prelude, then module, then the prelude's own JSON.stringify on the default
 * export) and the wording of every way that can fail, as one `plan_invalid` error naming the file.
 * Never validates the spec (the caller does) and never runs code that skipped the check, except
 * in tests of the sandbox itself.
 */
import { ErrorCode, KeelError } from '../core/errors.ts';
import { DEFAULT_SANDBOX_LIMITS, SandboxFailure, type SandboxLimits, withSandbox } from './plan-sandbox.ts';
import { SANDBOX_PRELUDE } from './sandbox-prelude.ts';

/** The guest's file name is fixed, so nothing about where the module lives can reach its spec. */
const GUEST_FILE = 'plan-module.js';

export async function evaluatePlanModule(
  js: string,
  file: string,
  limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS,
): Promise<unknown> {
  let json: string;
  try {
    json = await withSandbox(limits, (sb) => {
      const stringify = sb.eval(SANDBOX_PRELUDE, 'keel-prelude.js', 'global');
      const namespace = sb.eval(js, GUEST_FILE, 'module');
      const exported = sb.get(namespace, 'default');
      if (sb.typeOf(exported) === 'undefined')
        throw invalid(file, 'it has no default export; end it with `export default defineWorkflow({...})`');
      if (sb.typeOf(exported) !== 'object')
        throw invalid(file, `its default export is a ${sb.typeOf(exported)}, not a workflow spec object`);
      const text = sb.call(stringify, exported);
      if (sb.typeOf(text) !== 'string') throw invalid(file, 'its default export cannot be written as JSON');
      return sb.string(text);
    });
  } catch (e) {
    if (e instanceof SandboxFailure) throw invalid(file, describe(e, limits));
    throw e;
  }
  return JSON.parse(json);
}

function describe(e: SandboxFailure, limits: SandboxLimits): string {
  if (e.kind === 'step_limit')
    return `it ran past its step limit (${limits.maxInterrupts} interrupt checks) and was stopped; a plan module builds a spec and returns, so look for a loop that never ends`;
  if (e.kind === 'memory_limit')
    return `it ran past its memory limit (${Math.round(limits.memoryBytes / 1024 / 1024)} MB) and was stopped`;
  if (e.kind === 'crashed') return `${e.message}; simplify the module (deep nesting or recursion?)`;
  return `it threw while being evaluated: ${e.message}`;
}

function invalid(file: string, why: string): KeelError {
  return new KeelError(ErrorCode.planInvalid, `${file}: the plan module cannot be loaded: ${why}`, { file });
}
