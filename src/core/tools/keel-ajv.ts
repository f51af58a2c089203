/**
 * The one JSON Schema validator of Keel (ajv, draft 2020-12, with formats): tool arguments,
 * results, specs' argument checks and tool descriptors are all judged by it, so a schema means the
 * same everywhere. Its `multipleOf` is exact in decimal (exact-multiple-of.ts), not ajv's floating
 * point division, so `multipleOf: 0.01` accepts every cent amount and nothing else.
 *
 * Every schema it compiles is first checked against the draft 2020-12 meta-schema, as ajv does.
 * In the build, that check is standalone code generated at build time (meta-schema-code.ts), so a
 * process does not compile the meta-schema itself (~40 ms) before its first schema; run from the
 * sources, ajv compiles it as usual. Both refuse the same schemas with the same message.
 *
 * Validation never mutates a value: no defaults, no coercion.
 */
import { createRequire } from 'node:module';
import {
  Ajv2020,
  type AnySchema,
  type FuncKeywordDefinition,
  type Options,
  type ValidateFunction,
} from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { isExactMultipleOf } from './exact-multiple-of.ts';

/** The `$schema` of draft 2020-12, the default meta-schema of Keel's validator. */
export const DRAFT_2020_META_SCHEMA = 'https://json-schema.org/draft/2020-12/schema';

/** `multipleOf` as an exact decimal test; the error reads as ajv's own does. */
export const exactMultipleOf: FuncKeywordDefinition = {
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

/**
 * The build's generated meta-schema check beside this module (meta-schema-code.ts), or undefined
 * where there is none (run from the sources).
 */
function loadPrecompiledMetaSchema(): ValidateFunction | undefined {
  try {
    // The same name as META_SCHEMA_MODULE (not imported: that module loads ajv's code generator).
    return createRequire(import.meta.url)('./draft-2020-meta-schema.cjs') as ValidateFunction;
  } catch (e) {
    if ((e as { code?: unknown }).code === 'MODULE_NOT_FOUND') return undefined;
    throw e;
  }
}

let precompiled: ValidateFunction | undefined | null = null;

/** The build's meta-schema check, loaded once. */
function precompiledMetaSchema(): ValidateFunction | undefined {
  if (precompiled === null) precompiled = loadPrecompiledMetaSchema();
  return precompiled;
}

/**
 * A new validator with Keel's options, formats and exact `multipleOf`. `metaSchema`: the check of
 * schemas against draft 2020-12 to use instead of compiling the meta-schema (the build's, by default;
 * `null` for ajv's own).
 */
export function createKeelAjv(
  options: Options = {},
  metaSchema: ValidateFunction | null | undefined = precompiledMetaSchema(),
): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: false,
    useDefaults: false,
    coerceTypes: false,
    ...options,
  });
  addFormats.default(ajv);
  ajv.removeKeyword('multipleOf');
  ajv.addKeyword(exactMultipleOf);
  if (metaSchema) useMetaSchemaCheck(ajv, metaSchema);
  return ajv;
}

/**
 * Ajv's `validateSchema`, with `check` judging schemas of draft 2020-12 (those without `$schema`,
 * or naming it); any other `$schema` is left to ajv. Same result, same `errors`, same message.
 */
function useMetaSchemaCheck(ajv: Ajv2020, check: ValidateFunction): void {
  const ajvOwn = ajv.validateSchema.bind(ajv);
  ajv.validateSchema = (schema: AnySchema, throwOrLogError?: boolean): boolean => {
    if (typeof schema === 'boolean') return true;
    const named = (schema as { $schema?: unknown }).$schema;
    if (named !== undefined && named !== DRAFT_2020_META_SCHEMA)
      return ajvOwn(schema, throwOrLogError) as boolean;
    const valid = check(schema) as boolean;
    ajv.errors = check.errors ?? null;
    if (!valid && throwOrLogError) {
      const message = `schema is invalid: ${ajv.errorsText()}`;
      if (ajv.opts.validateSchema === 'log') ajv.logger.error(message);
      else throw new Error(message);
    }
    return valid;
  };
}

/** The shared instance (compiled schemas are cached by their callers). */
export const keelAjv: Ajv2020 = createKeelAjv();
