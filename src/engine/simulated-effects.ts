/**
 * The effects of a simulated run (a TESTING test, a SHADOW run): every check runs as in a live
 * run, but no `write` or `external` tool ever acts. Such a tool's `simulate` answers in its place
 * (a pure stand-in returning a result of its `result` schema, and its world deltas); a tool
 * without one is suppressed — nothing is called, the step has no output. `read` tools are called
 * for real unless the spec says `simulation: { reads: simulated }`; a destructive tool never is. Sources and model answers are
 * drawn live and ledgered, as in any run. A delegation never starts a child from a simulated run.
 * A shadow run is answered from its live run's record where it does what the live run did (see
 * `simulatedEffects`), so the two are compared on the same inputs.
 *
 * It must never call a handler of a tool that may act, and never hand a simulation a secret.
 */
import { canonicalize } from '../core/canonical/index.ts';
import type { PayloadOf, StepMode } from '../core/ledger/index.ts';
import { type RunState, runTime } from '../core/run/index.ts';
import { isSecretRef } from '../core/spec/index.ts';
import { deltaProblems } from '../core/world/index.ts';
import { isResultWithDeltas, type ToolDefinition } from '../ports/index.ts';
import { type Effects, errorOf, type StepOutcome } from './effects.ts';
import { DELEGATE_TOOL } from './mint-delegation.ts';
import { callKey } from './recorded-effects.ts';

/** Whether a simulated run calls its read tools for real (`live`, the default) or simulates them. */
export type SimulatedReads = 'live' | 'simulated';

/**
 * How a simulated run carries out a call of `tool`: `live` only for a read tool called for real.
 * A destructive tool is never called live, whatever its effect says (registration refuses a
 * destructive read; this holds even for a descriptor that never went through it).
 */
export function simulatedMode(tool: ToolDefinition, reads: SimulatedReads): StepMode {
  return tool.effect === 'read' && !tool.destructive && reads === 'live' && tool.name !== DELEGATE_TOOL
    ? 'live'
    : 'simulated';
}

/** The arguments a simulation sees: every secret replaced by a placeholder naming it, never its value. */
function withoutSecrets(v: unknown): unknown {
  if (isSecretRef(v)) return `[secret ${v.env}]`;
  if (Array.isArray(v)) return v.map(withoutSecrets);
  if (typeof v === 'object' && v !== null)
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withoutSecrets(x)]));
  return v;
}

async function simulate(
  tool: ToolDefinition,
  a: PayloadOf<'step.allowed'>,
  s: RunState,
): Promise<StepOutcome> {
  if (!tool.simulate) {
    const what =
      tool.name === DELEGATE_TOOL
        ? 'a delegation'
        : tool.destructive
          ? 'destructive'
          : `a${tool.effect === 'external' ? 'n' : ''} ${tool.effect} tool`;
    return {
      ok: false,
      suppressed: `effect_suppressed: ${tool.name} is ${what} with no simulate, so in a simulated run nothing was called and the step has no output`,
    };
  }
  try {
    const output =
      (await tool.simulate(withoutSecrets(a.args) as Record<string, unknown>, {
        tenant: s.tenant,
        runId: s.runId,
        step: a.step,
        idempotencyKey: a.idempotencyKey,
        attempt: a.attempt,
        simulated: true,
      })) ?? null;
    if (isResultWithDeltas(output)) {
      const problems = deltaProblems(output.deltas);
      if (problems.length > 0) {
        const p = problems[0]!;
        return { ok: false, error: { code: 'invalid_deltas', message: `delta ${p.index}: ${p.message}` } };
      }
      const value = output.output ?? null;
      canonicalize({ value, deltas: output.deltas });
      return output.deltas.length > 0
        ? { ok: true, output: value, deltas: output.deltas }
        : { ok: true, output: value };
    }
    canonicalize(output);
    return { ok: true, output };
  } catch (e) {
    const error = errorOf(e);
    return {
      ok: false,
      error: { code: error.code, message: `${tool.name}'s simulate failed: ${error.message}` },
    };
  }
}

/**
 * What a shadow run is given of its (ended) live run's record: its draws in order, and its calls'
 * outcomes by call (`callKey`: the same tool with the same arguments), each call's in order.
 * `made`: how many of each call the shadow run has had answered already (a recovered shadow).
 */
export interface LiveRecord {
  readonly draws: readonly PayloadOf<'source.drawn'>[];
  readonly outcomes: ReadonlyMap<string, readonly StepOutcome[]>;
  readonly made?: ReadonlyMap<string, number>;
}

/**
 * `live` wrapped for a simulated run: draws, models and read tools through it, nothing else. A
 * shadow run is given its live run's record (`borrowed`), so the two are compared on the same
 * inputs: where its n-th draw reads the same source as the live run's n-th, it gets the same value
 * (the same clock, randomness and ids rather than values drawn a moment apart); and where it makes
 * a call the live run made — the same tool with the same arguments, the n-th such call — that a
 * simulated run would not make for real, it is answered with what the live run's call returned
 * (or failed with) instead of the tool's `simulate`: the live answer is what that very call gets,
 * and a later step reading it (a refund's id in a reply) then reads what the live run read. Both are
 * recorded in the shadow's own ledger. Model answers are never borrowed: another version may ask
 * another question.
 */
export function simulatedEffects(live: Effects, reads: SimulatedReads, borrowed?: LiveRecord): Effects {
  const made = new Map(borrowed?.made ?? []);
  return {
    ...live,
    draw(ref, s) {
      const b = borrowed?.draws[s.draws];
      if (b && b.source === ref.source && (b.name ?? null) === (ref.name ?? null)) return b.value;
      const value = live.draw(ref, s);
      // The run's virtual clock (virtual-clock.ts): a test's declared clock, or past a wait's end.
      return ref.source === 'clock' && typeof value === 'string' ? runTime(s, value) : value;
    },
    // A simulated run never mints: a delegation is suppressed, with no child.
    delegate: undefined,
    mode: (tool) => simulatedMode(tool, reads),
    async invoke(tool, a, s, signal) {
      if (simulatedMode(tool, reads) === 'live') return live.invoke(tool, a, s, signal);
      if (borrowed) {
        const key = callKey(a.tool, a.args);
        const n = made.get(key) ?? 0;
        made.set(key, n + 1);
        const o = borrowed.outcomes.get(key)?.[n];
        // An outcome the live run knew (a result or an error), never an unknown one.
        if (o && (o.ok || 'error' in o)) return o;
      }
      return simulate(tool, a, s);
    },
    async reconcile(tool, a, s) {
      // A read tool called for real is settled as in a live run; a simulated call is made again.
      return tool && simulatedMode(tool, reads) === 'live' ? live.reconcile?.(tool, a, s) : undefined;
    },
  };
}
