/**
 * The one JSON Schema validator of Keel (ajv, draft 2020-12, with formats): tool arguments,
 * results, specs' argument checks and tool descriptors are all judged by it, so a schema means the
 * same everywhere. Its `multipleOf` is exact in decimal (exact-multiple-of.ts), not ajv's floating
 * point division, so `multipleOf: 0.01` accepts every cent amount and nothing else.
 *
 * Validation never mutates a value: no defaults, no coercion.
 */
import { Ajv2020, type KeywordDefinition } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { isExactMultipleOf } from './exact-multiple-of.ts';

/** `multipleOf` as an exact decimal test; the error reads as ajv's own does. */
const exactMultipleOf: KeywordDefinition = {
  keyword: 'multipleOf',
  type: 'number',
  schemaType: 'number',
  errors: true,
  validate: function multipleOf(divisor: number, value: number): boolean {
    if (isExactMultipleOf(value, divisor)) return true;
    (multipleOf as { errors?: unknown[] }).errors = [
      { keyword: 'multipleOf', params: { multipleOf: divisor }, message: `must be multiple of ${divisor}` },
    ];
    return false;
  },
};

/** A new validator with Keel's options, formats and exact `multipleOf`. */
export function createKeelAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: false, useDefaults: false, coerceTypes: false });
  addFormats.default(ajv);
  ajv.removeKeyword('multipleOf');
  ajv.addKeyword(exactMultipleOf);
  return ajv;
}

/** The shared instance (compiled schemas are cached by their callers). */
export const keelAjv: Ajv2020 = createKeelAjv();
