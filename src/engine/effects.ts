/**
 * Where a walk gets what it does not decide itself: source values, tool outcomes, entry
 * timestamps, and (when replaying) recorded approval decisions. The live effects draw from the
 * real world and call tool handlers; the recorded effects (recorded-effects.ts) serve a ledger's
 * values and never call anything. The walk records whatever it is given, the same way for both.
 */

import { canonicalize } from '../core/canonical/index.ts';
import { isKeelError } from '../core/errors.ts';
import type {
  ModelOutageSuspension,
  OutcomeUnknownSuspension,
  PayloadOf,
  StepMode,
} from '../core/ledger/index.ts';
import type { RunState } from '../core/run/index.ts';
import {
  isSecretEnvName,
  isSecretRef,
  parseTemplatePath,
  type SecretRef,
  type SourceRef,
  type StepSpec,
  templateRefs,
} from '../core/spec/index.ts';
import { secretMask, validateValue } from '../core/tools/index.ts';
import { type Delta, deltaProblems } from '../core/world/index.ts';
import {
  isResultWithDeltas,
  type ModelProvider,
  type ModelRequest,
  OUTCOME_UNKNOWN,
  type RawSources,
  type ToolDefinition,
} from '../ports/index.ts';
import { DEFAULT_MODEL_RETRIES, type ModelDraw, meteredModelDraw } from './metered-model.ts';
import type { DelegationRequest, MintResult } from './mint-delegation.ts';
import type { RecordedBudget } from './recorded-budget.ts';
import { SecretHasher } from './secret-hasher.ts';

/** The most attempts of one step a tool's reconcile check may send back as "did not happen". */
export const MAX_TOOL_RECONCILED_ATTEMPTS = 3;

export type StepOutcome =
  | { readonly ok: true; readonly output: unknown; readonly deltas?: readonly Delta[] }
  | { readonly ok: false; readonly error: { readonly code: string; readonly message: string } }
  /** Replay only: the record holds no outcome for this call because it was never known (a crash). */
  | { readonly ok: false; readonly unknown: true }
  /** A simulated run only: the tool may act and has no `simulate`, so nothing was called (why). */
  | { readonly ok: false; readonly suppressed: string };

/** How an in-flight call's outcome was established without calling the tool again. */
export type Reconciliation =
  | { readonly decision: PayloadOf<'step.reconciled'> }
  /** The check ran and could not tell (it threw or answered nonsense): a person decides. */
  | { readonly problem: string };

export interface Effects {
  /**
   * Live only: reads, before a step's synchronous draws, what drawing them needs (the tenant's
   * secret key when the step reads a secret).
   */
  prepare?(step: StepSpec, state: RunState): Promise<void>;
  /** The value of a declared source, read now (the walk ledgers it before using it). */
  draw(ref: SourceRef, state: RunState): unknown;
  /**
   * A model's value for the open slot `slot` (source `x-model`), drawn now; the walk ledgers it
   * before using it. Live: the model provider (absent when none is configured); replaying: the record.
   */
  model?(request: ModelRequest & { readonly slot: string }, state: RunState): Promise<ModelDraw>;
  /** The outcome of an allowed tool call; `signal` reaches the tool (aborted when the run is cancelled). */
  invoke(
    tool: ToolDefinition,
    allowed: PayloadOf<'step.allowed'>,
    state: RunState,
    signal?: AbortSignal,
  ): Promise<StepOutcome>;
  /**
   * The outcome of an in-flight call of a tool that may not be called again, established without
   * calling it: live, the tool's own `reconcile` check (never for a run already suspended, which
   * waits for a person); replaying, the recorded reconciliation. Undefined: nobody can tell.
   */
  reconcile?(
    tool: ToolDefinition | undefined,
    allowed: PayloadOf<'step.allowed'>,
    state: RunState,
  ): Promise<Reconciliation | undefined>;
  /**
   * Replaying only: the step whose call outcome the record holds at the next seq, if any, so the
   * outcomes of parallel calls are written in the order they were recorded (live: as they arrive).
   */
  nextOutcome?(state: RunState): string | undefined;
  /** The timestamp of the entry about to be written at `seq`. */
  at(seq: number): string;
  /**
   * How the call of `tool` about to be allowed is carried out, as its `step.allowed` records it
   * (`mode`): simulated effects say `simulated` or `live`, a replay fork `recorded`, a replay what
   * the record says. Absent, or undefined: a live call (nothing recorded).
   */
  mode?(tool: ToolDefinition, step: string, state: RunState): StepMode | undefined;
  /**
   * Replaying only: the recorded cancellation when the next entry the walk writes is the recorded
   * `run.finished` cancelled (its reason as recorded). Live, cancellation reaches a walk through
   * its abort signal instead.
   */
  cancellation?(state: RunState): { readonly reason?: string } | undefined;
  /**
   * Replaying only: the pause or resume recorded where the walk's next entry would go, so it is
   * written there again (a hold changes no decision; it only says when the walk waited).
   */
  hold?(state: RunState): HoldEntry | undefined;
  /**
   * Mints the child writ of a `core.delegate` step that passed its checks (mint-delegation.ts): live, with
   * the tenant's delegation key; replaying, the recorded mint. Absent: the engine cannot delegate.
   */
  delegate?(request: DelegationRequest, state: RunState): Promise<MintResult>;
  /** A recorded decision for the approval the run waits for, when replaying; live runs wait for a person. */
  approval?(
    request: PayloadOf<'approval.requested'>,
    state: RunState,
  ): PayloadOf<'approval.resolved'> | undefined;
  /**
   * Replaying only: whether the record holds an approval deadline's entry (`approval.reminded`,
   * `approval.escalated`, `approval.expired`) where the walk's next entry would go, so the walk
   * writes it there again; live effects have none (the clock decides, approval-deadline.ts).
   */
  recordedApprovalDeadline?(state: RunState): boolean;
  /**
   * Replaying only: what the record says a writ's shared budget answered for the allow about to
   * be written (the reservation its `step.allowed` recorded, or the store's refusal), so a replay
   * and a replay fork never ask the store (writ-budget.ts). Live effects have none: the store decides.
   */
  recordedBudget?(state: RunState): RecordedBudget | undefined;
  /**
   * Replaying: the suspension recorded at the next seq, if any. Its message says what a reconcile
   * check answered (a nondeterministic read), so replay writes it as recorded instead of asking.
   */
  recordedSuspension?(state: RunState): OutcomeUnknownSuspension | undefined;
  /**
   * Replaying: the model outage recorded at the next seq, if any: the walk met it where the live
   * walk did (its `model` throws there), and writes it as recorded.
   */
  recordedOutage?(state: RunState): ModelOutageSuspension | undefined;
  /**
   * Replaying: the `wait.ended` recorded at the next seq, if any: a wait for an event is served the
   * event it took (or its timeout) from the record, and never asks the store.
   */
  recordedWaitEnd?(state: RunState): PayloadOf<'wait.ended'> | undefined;
}

/** A pause or a resume, as recorded. */
export type HoldEntry =
  | { readonly kind: 'run.paused'; readonly payload: PayloadOf<'run.paused'> }
  | { readonly kind: 'run.resumed'; readonly payload: PayloadOf<'run.resumed'> };

/**
 * How live effects read the environment for a tenant's runs: only the names the operator exposed
 * to that tenant (any other name reads as unset, null, and the process environment is never
 * consulted for it), secrets recorded as a keyed hash under the tenant's key.
 */
export interface LiveEffectsOptions {
  /** Whether the tenant's runs may read `name` from the environment; nothing by default. */
  readonly exposesEnv?: (tenant: string, name: string) => boolean;
  /** Which env names hold secrets; `SECRET_ENV` by default. */
  readonly isSecretEnv?: (name: string) => boolean;
  /** The tenant's key for hashing secret values (`Keys.secretKey`); needed once a secret is read. */
  readonly secretKey?: (tenant: string) => Promise<Uint8Array>;
  readonly modelProvider?: ModelProvider;
  /** How many times a metering provider's schema-invalid answer is asked again (2 by default). */
  readonly modelRetries?: number;
}

/** The secret references in a value, in canonical key order. */
function secretRefs(v: unknown, out: SecretRef[] = []): SecretRef[] {
  if (isSecretRef(v)) out.push(v);
  else if (Array.isArray(v)) for (const x of v) secretRefs(x, out);
  else if (typeof v === 'object' && v !== null) for (const x of Object.values(v)) secretRefs(x, out);
  return out;
}

/**
 * The arguments a tool receives: every SecretRef replaced by the current value it hashes to.
 * `clear` holds each referenced name's value, read once and already checked against its hash.
 */
function revealSecrets(v: unknown, clear: ReadonlyMap<SecretRef, string | null>): unknown {
  if (isSecretRef(v)) return clear.get(v) ?? null;
  if (Array.isArray(v)) return v.map((x) => revealSecrets(x, clear));
  if (typeof v === 'object' && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, revealSecrets(x, clear)]));
  }
  return v;
}

/**
 * A tool's output with any secret it was given masked, so a tool that echoes one cannot ledger it:
 * in any encoding it may echo it in (JSON-escaped, `\u` escapes, base64, HTML entities, percent-
 * encoding, a number), by the one mask HTTP tools use too (core/tools/secret-mask.ts).
 */
function maskSecrets(v: unknown, revealed: Map<string, string>): unknown {
  if (revealed.size === 0) return v;
  return secretMask(new Map([...revealed].map(([clear, name]) => [name, clear]))).value(v);
}

export function liveEffects(raw: RawSources, o: LiveEffectsOptions = {}): Effects {
  const { modelProvider } = o;
  const exposes = o.exposesEnv ?? (() => false);
  const isSecret = o.isSecretEnv ?? isSecretEnvName;
  const hasher = new SecretHasher(
    o.secretKey ??
      (() => Promise.reject(new Error('this engine has no secret key store; it cannot read a secret'))),
  );
  /** Whether a step's arguments read a secret, by step (a pinned spec's steps never change). */
  const readsSecret = new WeakMap<object, boolean>();
  /** The tenant's view of the environment: an unexposed name is unset, and the process is not asked. */
  const envOf = (tenant: string, name: string): string | null =>
    exposes(tenant, name) ? (raw.env.get(name) ?? null) : null;
  /**
   * Each secret the arguments reference, read now and checked against the hash the run recorded
   * (`secret_changed` if it is not the same value); `revealed` learns each clear value to mask.
   */
  const readSecrets = async (args: unknown, tenant: string, revealed: Map<string, string>) => {
    const clear = new Map<SecretRef, string | null>();
    for (const ref of secretRefs(args)) {
      const value = envOf(tenant, ref.env);
      if (!(await hasher.matches(tenant, value, ref.$secret))) {
        throw Object.assign(new Error(`secret ${ref.env} changed since it was read for this step`), {
          code: 'secret_changed',
        });
      }
      if (typeof value === 'string' && value.length > 0) revealed.set(value, ref.env);
      clear.set(ref, value);
    }
    return clear;
  };
  return {
    ...(modelProvider
      ? {
          async model({ prompt, schema, catalog }: ModelRequest): Promise<ModelDraw> {
            if (modelProvider.answer) {
              const answer = modelProvider.answer.bind(modelProvider);
              const drawn = await meteredModelDraw(
                { answer },
                { prompt, schema, catalog },
                o.modelRetries ?? DEFAULT_MODEL_RETRIES,
              );
              canonicalize(drawn);
              return drawn;
            }
            const value = (await modelProvider.complete({ prompt, schema, catalog })) ?? null;
            canonicalize(value);
            return { value };
          },
        }
      : {}),
    async prepare(step, s) {
      // Drawing is synchronous: the tenant's key is read before a step that reads a secret.
      let secret = readsSecret.get(step.args);
      if (secret === undefined) {
        secret = templateRefs(step.args).some((t) => {
          const ref = parseTemplatePath(t.path);
          return (
            typeof ref !== 'string' &&
            ref.root === 'source' &&
            ref.ref.source === 'env' &&
            isSecret(ref.ref.name ?? '')
          );
        });
        readsSecret.set(step.args, secret);
      }
      if (secret) await hasher.load(s.tenant);
    },
    draw(ref, s) {
      if (ref.source === 'env') {
        const name = ref.name ?? '';
        const value = envOf(s.tenant, name);
        if (!isSecret(name)) return value;
        const secret: SecretRef = { $secret: hasher.hash(s.tenant, value), env: name };
        return secret;
      }
      switch (ref.source) {
        case 'clock':
          return new Date(raw.clock.now()).toISOString();
        case 'random':
          return ref.name === 'hex' ? Buffer.from(raw.random.bytes(16)).toString('hex') : raw.random.float();
        case 'id':
          return raw.random.uuid();
      }
    },
    async invoke(tool, a, s, signal) {
      const revealed = new Map<string, string>();
      try {
        const clear = await readSecrets(a.args, s.tenant, revealed);
        const args = revealSecrets(a.args, clear) as Record<string, unknown>;
        if (clear.size > 0) {
          // The checks judged each secret by its type; its value is judged here, before the call.
          const problems = validateValue(tool.args, args);
          if (problems.length > 0) {
            const what = problems.map(
              (p) => `${p.field}: ${p.problem.replaceAll('_', ' ')} (expected ${p.expected})`,
            );
            return { ok: false, error: { code: 'invalid_arguments', message: what.join('; ') } };
          }
        }
        const output =
          (await tool.handler(args, {
            tenant: s.tenant,
            runId: s.runId,
            step: a.step,
            idempotencyKey: a.idempotencyKey,
            attempt: a.attempt,
            ...(signal ? { signal } : {}),
          })) ?? null;
        if (isResultWithDeltas(output)) {
          const problems = deltaProblems(output.deltas);
          if (problems.length > 0) {
            const p = problems[0]!;
            return {
              ok: false,
              error: { code: 'invalid_deltas', message: `delta ${p.index}: ${p.message}` },
            };
          }
          const masked = maskSecrets(output.output ?? null, revealed);
          const deltas = maskSecrets(output.deltas, revealed) as Delta[];
          canonicalize({ masked, deltas });
          return deltas.length > 0 ? { ok: true, output: masked, deltas } : { ok: true, output: masked };
        }
        const masked = maskSecrets(output, revealed);
        canonicalize(masked);
        return { ok: true, output: masked };
      } catch (e) {
        const error = errorOf(e);
        // The tool cannot tell whether its effect happened: no outcome is recorded (walk.ts settles it).
        if (error.code === OUTCOME_UNKNOWN && !signal?.aborted) return { ok: false, unknown: true };
        return {
          ok: false,
          error: { code: error.code, message: maskSecrets(error.message, revealed) as string },
        };
      }
    },
    async reconcile(tool, a, s) {
      if (s.suspended || !tool?.reconcile) return undefined;
      const revealed = new Map<string, string>();
      try {
        const clear = await readSecrets(a.args, s.tenant, revealed);
        const found = await tool.reconcile(revealSecrets(a.args, clear) as Record<string, unknown>, {
          tenant: s.tenant,
          runId: s.runId,
          step: a.step,
          idempotencyKey: a.idempotencyKey,
          attempt: a.attempt,
        });
        if (typeof found?.happened !== 'boolean') {
          return { problem: `the reconcile check of ${tool.name} answered without a boolean "happened"` };
        }
        // "Did not happen" proposes the step again: from the last attempt a check may answer so, a
        // person decides instead, so a call that is always lost (and never found) is not made forever.
        if (!found.happened && a.attempt >= MAX_TOOL_RECONCILED_ATTEMPTS) {
          return {
            problem: `the reconcile check of ${tool.name} found no call for attempt ${a.attempt} either; after ${MAX_TOOL_RECONCILED_ATTEMPTS} attempts a person decides`,
          };
        }
        const output = found.happened ? maskSecrets(found.output ?? null, revealed) : undefined;
        if (output !== undefined) canonicalize(output);
        return {
          decision: {
            step: a.step,
            tool: a.tool,
            proposalId: a.proposalId,
            happened: found.happened,
            via: 'tool',
            by: tool.name,
            ...(output !== undefined ? { output } : {}),
          },
        };
      } catch (e) {
        return {
          problem: `the reconcile check of ${tool.name} failed: ${maskSecrets(errorOf(e).message, revealed) as string}`,
        };
      }
    },
    at: () => new Date(raw.clock.now()).toISOString(),
  };
}

/** A thrown value as ledger data: a code and a message, never a stack. */
export function errorOf(e: unknown): { code: string; message: string } {
  const code = isKeelError(e)
    ? e.code
    : typeof (e as { code?: unknown })?.code === 'string'
      ? (e as { code: string }).code
      : 'tool_error';
  return { code, message: e instanceof Error ? e.message : String(e) };
}
