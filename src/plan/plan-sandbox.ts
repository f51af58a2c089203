/**
 * The QuickJS sandbox plan modules are evaluated in: a fresh WebAssembly instance, runtime and
 * context per evaluation, with a step budget (a counting interrupt handler, so the cut-off point
 * is itself deterministic), a memory limit and a stack limit.
 *
 * Owns every QuickJS handle: each one is registered in the sandbox's scope and disposed, with the
 * context and runtime, when `withSandbox` returns or throws. Callers never dispose anything. Never
 * gives the guest a host function: nothing inside can call back into Node, and a guest that breaks
 * QuickJS itself breaks only its own instance.
 */

import {
  newQuickJSWASMModule,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  Scope,
} from 'quickjs-emscripten';
import { isKeelError } from '../core/errors.ts';

export interface SandboxLimits {
  /** Interrupt-handler calls allowed; QuickJS calls it every few thousand operations. */
  readonly maxInterrupts: number;
  readonly memoryBytes: number;
  readonly stackBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  maxInterrupts: 1_000,
  memoryBytes: 32 * 1024 * 1024,
  // Small on purpose: some QuickJS paths (JSON.stringify of deep nesting) use far more of the host's
  // native stack per byte of this budget, and must hit this limit before the host's.
  stackBytes: 64 * 1024,
};

/** Why guest code failed: it threw, or a limit stopped it. */
export class SandboxFailure extends Error {
  constructor(
    readonly kind: 'threw' | 'step_limit' | 'memory_limit' | 'crashed',
    message: string,
  ) {
    super(message);
  }
}

type ResultLike = { error?: QuickJSHandle; value?: QuickJSHandle };

export class Sandbox {
  constructor(
    private readonly context: QuickJSContext,
    private readonly runtime: QuickJSRuntime,
    private readonly scope: Scope,
    private readonly interrupted: () => boolean,
  ) {}

  /** Evaluates a script (`global`) or an ES module (`module`, yielding its namespace, awaited). */
  eval(code: string, filename: string, type: 'global' | 'module'): QuickJSHandle {
    const handle = this.unwrap(this.context.evalCode(code, filename, { type, strict: true }));
    return type === 'module' ? this.settle(handle) : handle;
  }

  call(fn: QuickJSHandle, ...args: QuickJSHandle[]): QuickJSHandle {
    return this.unwrap(this.context.callFunction(fn, this.context.undefined, ...args));
  }

  get(target: QuickJSHandle, key: string): QuickJSHandle {
    return this.keep(this.context.getProp(target, key));
  }

  typeOf(handle: QuickJSHandle): string {
    return this.context.typeof(handle);
  }

  string(handle: QuickJSHandle): string {
    return this.context.getString(handle);
  }

  /** A promise (a module with top-level await) is run to completion; anything else is returned as is. */
  private settle(handle: QuickJSHandle): QuickJSHandle {
    let state = this.context.getPromiseState(handle);
    if (state.type === 'pending') {
      const jobs = this.runtime.executePendingJobs(-1);
      if (jobs.error) throw this.failure(this.keep(jobs.error));
      state = this.context.getPromiseState(handle);
    }
    if (state.type === 'pending')
      throw new SandboxFailure('threw', 'the module awaits something that never settles');
    if (state.type === 'rejected') throw this.failure(this.keep(state.error));
    return state.notAPromise ? handle : this.keep(state.value);
  }

  private keep(handle: QuickJSHandle): QuickJSHandle {
    return this.scope.manage(handle);
  }

  private unwrap(result: ResultLike): QuickJSHandle {
    if (result.error) throw this.failure(this.keep(result.error));
    return this.keep(result.value!);
  }

  private failure(error: QuickJSHandle): SandboxFailure {
    if (this.interrupted()) return new SandboxFailure('step_limit', 'it ran past its step limit');
    let name = 'Error';
    let message: string;
    try {
      const dumped: unknown = this.context.dump(error);
      if (dumped !== null && typeof dumped === 'object' && 'message' in dumped) {
        name = String((dumped as { name?: unknown }).name ?? 'Error');
        message = String((dumped as { message: unknown }).message);
      } else {
        message = `a non-error value was thrown: ${JSON.stringify(dumped) ?? String(dumped)}`;
      }
    } catch {
      message = 'an error that cannot be read was thrown';
    }
    if (/out of memory/i.test(message))
      return new SandboxFailure('memory_limit', 'it ran past its memory limit');
    return new SandboxFailure('threw', `${name}: ${message}`);
  }
}

/**
 * Runs `body` in a fresh sandbox and disposes every handle, the context and the runtime afterwards.
 * A failure of QuickJS itself (a host stack overflow, an internal assertion) is a `crashed` failure.
 */
export async function withSandbox<T>(limits: SandboxLimits, body: (sandbox: Sandbox) => T): Promise<T> {
  const quickjs = await newQuickJSWASMModule();
  const runtime = quickjs.newRuntime();
  let interrupts = 0;
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  runtime.setInterruptHandler(() => {
    interrupts += 1;
    return interrupts > limits.maxInterrupts;
  });
  const context = runtime.newContext();
  const scope = new Scope();
  let result: T;
  try {
    result = body(new Sandbox(context, runtime, scope, () => interrupts > limits.maxInterrupts));
  } catch (e) {
    release(scope, context, runtime);
    if (e instanceof SandboxFailure || isKeelError(e)) throw e;
    throw crashed(e);
  }
  const problem = release(scope, context, runtime);
  if (problem !== undefined) throw crashed(problem);
  return result;
}

/** Disposes everything; returns what went wrong instead of throwing (the instance is dropped anyway). */
function release(scope: Scope, context: QuickJSContext, runtime: QuickJSRuntime): unknown {
  try {
    scope.dispose();
    context.dispose();
    runtime.dispose();
    return undefined;
  } catch (e) {
    return e ?? 'unknown';
  }
}

function crashed(e: unknown): SandboxFailure {
  const message = e instanceof Error ? e.message : String(e);
  return new SandboxFailure('crashed', `the sandbox itself failed (${message.split('\n')[0]})`);
}
