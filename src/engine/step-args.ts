/**
 * A step's arguments: its templates resolved (sources drawn and ledgered first), then its open model
 * slots filled by the planner and checked against each slot's schema.
 *
 * Every value drawn — a template source or a model's answer (`x-model`) — goes through one draw:
 * reused from the ledger when it was drawn before a crash or inherited by a fork, else taken from the
 * effects and ledgered before it is used. The planner sees a frozen copy of the run's view and can
 * fill only the open slots; anything else it returns is refused, never merged. Never calls a tool.
 */
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { DrawnSource, ModelCallEntry } from '../core/ledger/index.ts';
import type { Decision, Iteration, RunState } from '../core/run/index.ts';
import { iterationStepId, modelSlots, resolveArgs, type StepSpec } from '../core/spec/index.ts';
import { type ArgProblem, formatArgProblem, validateValue } from '../core/tools/index.ts';
import type { CatalogTool, OpenSlot, Planner, PlannerView } from '../ports/index.ts';
import type { Effects } from './effects.ts';
import type { RunWriter } from './run-writer.ts';
import type { ToolRegistry } from './tool-registry.ts';

export type Refusal = Extract<Decision, { outcome: 'refuse' }>;
export type StepArgs =
  | { readonly ok: true; readonly args: Record<string, unknown> }
  | { readonly ok: false; readonly refusal: Refusal };

export async function stepArgs(
  w: RunWriter,
  step: StepSpec,
  tools: ToolRegistry,
  fx: Effects,
  planner: Planner,
  iteration?: Iteration,
): Promise<StepArgs> {
  const s = w.state;
  // Values drawn before a crash (or inherited by a fork) are reused, in order, before any new draw.
  const pending = [...s.drawsSinceDecision];
  const reuse = (
    source: DrawnSource,
    name: string | undefined,
  ): { value: unknown; model?: ModelCallEntry } | undefined => {
    const reused = pending.shift();
    if (!reused) return undefined;
    if (reused.source !== source || (reused.name ?? null) !== (name ?? null)) {
      throw new KeelError(
        ErrorCode.replayDiverged,
        `step ${step.name} reads ${source} where the ledger recorded ${reused.source}`,
        { step: step.name },
      );
    }
    return reused.model ? { value: reused.value, model: reused.model } : { value: reused.value };
  };
  const record = (
    source: DrawnSource,
    name: string | undefined,
    value: unknown,
    model?: ModelCallEntry,
  ): unknown => {
    const p = name === undefined ? { source, value } : { source, name, value };
    w.add('source.drawn', model ? { ...p, model } : p);
    return value;
  };
  /** Slots whose model gave no answer that fits, with why (the step is refused after the planner). */
  const invalid: { arg: string; problem: string }[] = [];

  await fx.prepare?.(step, s);
  const slots = modelSlots(step.args);
  // Slot prompts are templates too: resolved with the other arguments, in the same canonical order.
  const templated: Record<string, unknown> = { ...step.args };
  for (const slot of slots) templated[slot.arg] = slot.prompt;
  const resolved = resolveArgs(templated, {
    event: s.event,
    ...(iteration ? iterationScope(s, iteration) : { steps: s.stepScope }),
    draw: (ref) => {
      const reused = reuse(ref.source, ref.name);
      return reused ? reused.value : record(ref.source, ref.name, fx.draw(ref, s));
    },
  });
  if (!resolved.ok) {
    return refusal(
      'resolve',
      'unresolved_arguments',
      resolved.problems.map((p) => `${p.field}: ${p.message}`).join('; '),
    );
  }
  const args = resolved.value;
  if (slots.length === 0) return { ok: true, args };

  const open: OpenSlot[] = slots.map((slot) => {
    const prompt = args[slot.arg];
    delete args[slot.arg];
    return {
      arg: slot.arg,
      prompt: typeof prompt === 'string' ? prompt : JSON.stringify(prompt),
      schema: slot.schema,
    };
  });
  const catalog: CatalogTool[] = tools
    .catalog()
    .map(({ name, description, args: schema }) => ({ name, description, args: schema }));
  const model = fx.model?.bind(fx);
  const view: PlannerView = deepFreeze(
    structuredClone({
      runId: s.runId,
      tenant: s.tenant,
      step: { name: step.name, tool: step.tool, args: step.args },
      slots: open,
      event: s.event,
      outputs: s.outputs,
      catalog,
    }),
  );
  const values = await planner.fill(
    model
      ? Object.freeze({
          ...view,
          model: Object.freeze({
            async complete(arg: string) {
              const slot = open.find((o) => o.arg === arg);
              if (!slot) {
                throw new KeelError(
                  ErrorCode.usage,
                  `planner ${planner.name} asked the model for ${arg}, which step ${step.name} does not leave open`,
                  { step: step.name, arg },
                );
              }
              const reused = reuse('x-model', arg);
              if (reused) {
                if (reused.model?.invalid) invalid.push({ arg, problem: reused.model.invalid.problem });
                return structuredClone(reused.value);
              }
              const drawn = await model({ prompt: slot.prompt, schema: slot.schema, catalog, slot: arg }, s);
              if (drawn.model?.invalid) invalid.push({ arg, problem: drawn.model.invalid.problem });
              return structuredClone(record('x-model', arg, drawn.value, drawn.model));
            },
          }),
        })
      : view,
  );

  if (invalid.length > 0) {
    const what = invalid.map((i) => `${i.arg}: ${i.problem}`).join('; ');
    return refusal(
      'validate',
      'model_answer_invalid',
      `the model gave no answer that fits the slot schema after its retries (its last raw answer is in the ledger): ${what}`,
    );
  }
  const given = typeof values === 'object' && values !== null ? values : {};
  const stray = Object.keys(given).filter((k) => !open.some((o) => o.arg === k));
  if (stray.length > 0) {
    return refusal(
      'resolve',
      'slot_not_open',
      `planner ${planner.name} gave values for ${stray.join(', ')}, which step ${step.name} does not leave open; a planner fills only open slots`,
    );
  }
  const problems: ArgProblem[] = [];
  for (const slot of open) {
    if (!Object.hasOwn(given, slot.arg) || given[slot.arg] === undefined) {
      return refusal(
        'resolve',
        'slot_unfilled',
        model
          ? `planner ${planner.name} left ${slot.arg} open; it is open for a model`
          : `${slot.arg} is open for a model, but no model provider is configured`,
      );
    }
    const value = structuredClone(given[slot.arg]);
    for (const p of validateValue(slot.schema, value))
      problems.push({ ...p, field: slotField(slot.arg, p.field) });
    args[slot.arg] = value;
  }
  if (problems.length > 0) {
    return {
      ok: false,
      refusal: {
        outcome: 'refuse',
        check: 'validate',
        code: 'slot_invalid',
        message: `the planner's value does not fit the slot schema: ${problems.map(formatArgProblem).join('; ')}`,
        problems,
      },
    };
  }
  return { ok: true, args };
}

/**
 * What a step of a loop's body reads: the item by the loop's `as:` name, and the earlier steps of
 * the same iteration by their own names (`steps.lookup.output` is this iteration's lookup).
 */
function iterationScope(
  s: RunState,
  it: Iteration,
): { steps: Record<string, { output: unknown }>; items: Record<string, unknown> } {
  const steps = { ...s.stepScope };
  for (const b of it.body) {
    const own = s.stepScope[iterationStepId(it.loop, it.index, b)];
    if (own) steps[b] = own;
    else delete steps[b];
  }
  return { steps, items: { [it.as]: s.loops[it.loop]?.items[it.index] } };
}

function refusal(check: Refusal['check'], code: string, message: string): StepArgs {
  return { ok: false, refusal: { outcome: 'refuse', check, code, message } };
}

/** A problem's field inside the slot's value, as a field of the step's arguments. */
function slotField(arg: string, field: string): string {
  if (field === '(arguments)') return arg;
  return field.startsWith('[') ? `${arg}${field}` : `${arg}.${field}`;
}

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}
