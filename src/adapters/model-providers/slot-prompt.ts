/**
 * What every vendor adapter asks a model for a slot: the slot's schema wrapped as `{"value": ...}`
 * (providers constrain an object, and a slot may be a string or a number), one fixed instruction,
 * the prompt, and on a retry what was wrong with the previous answer. Parsing takes `value` back out.
 */
import type { JsonSchema } from '../../core/tools/index.ts';
import type { ModelRequest } from '../../ports/index.ts';

export const SLOT_INSTRUCTIONS =
  'You fill one value of a governed workflow step. Answer only with a JSON object {"value": ...} whose value fits the given JSON Schema. Never add other keys.';

export function wrappedSchema(schema: JsonSchema): JsonSchema {
  return { type: 'object', properties: { value: schema }, required: ['value'], additionalProperties: false };
}

export function userText(r: ModelRequest): string {
  const base = `${r.prompt}\n\nThe value must fit this JSON Schema: ${JSON.stringify(r.schema)}`;
  if (!r.retry) return base;
  return `${base}\n\nYour previous answer was refused (${r.retry.problem}). It was:\n${r.retry.raw}\nAnswer again.`;
}

/** The slot value in a raw answer `{"value": ...}`, or why there is none. */
export function parseSlotAnswer(raw: string): { value: unknown } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { problem: 'the answer is not JSON' };
  }
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    Array.isArray(parsed) ||
    !Object.hasOwn(parsed, 'value')
  ) {
    return { problem: 'the answer is not an object with a "value"' };
  }
  return { value: (parsed as { value: unknown }).value };
}
