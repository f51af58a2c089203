/**
 * Model slots: step arguments a spec leaves open for a model to fill.
 *
 * A slot is a top-level argument whose whole value is `{"$model": {"prompt": "...", "schema": {...}}}`.
 * The prompt may hold templates (resolved like any argument); the schema is the JSON Schema the
 * model's value must satisfy. Owns recognising and listing slots; never fills, resolves or validates one.
 */
import type { JsonSchema } from '../tools/index.ts';

/** The key that marks a model slot. */
export const MODEL_SLOT_KEY = '$model';

/** One open argument as the spec declares it (prompt still a template). */
export interface ModelSlotSpec {
  readonly arg: string;
  readonly prompt: string;
  readonly schema: JsonSchema;
}

/** True for a value of the slot shape `{ $model: { prompt: string, schema: mapping } }` and nothing else. */
export function isModelSlot(v: unknown): v is { $model: { prompt: string; schema: JsonSchema } } {
  if (!isPlainMapping(v) || Object.keys(v).length !== 1 || !Object.hasOwn(v, MODEL_SLOT_KEY)) return false;
  const m = v[MODEL_SLOT_KEY];
  return (
    isPlainMapping(m) &&
    Object.keys(m).length === 2 &&
    typeof m.prompt === 'string' &&
    isPlainMapping(m.schema)
  );
}

/** The open slots of a step's args, in canonical key order. */
export function modelSlots(args: Readonly<Record<string, unknown>>): ModelSlotSpec[] {
  const out: ModelSlotSpec[] = [];
  for (const arg of Object.keys(args).sort()) {
    const v = args[arg];
    if (isModelSlot(v)) out.push({ arg, prompt: v.$model.prompt, schema: v.$model.schema });
  }
  return out;
}

function isPlainMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
