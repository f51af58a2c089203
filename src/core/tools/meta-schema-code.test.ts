/**
 * The build's standalone meta-schema check (meta-schema-code.ts) judges schemas as ajv's own
 * meta-schema check does: the same schemas compile, the same are refused with the same message.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { createKeelAjv } from './keel-ajv.ts';
import { metaSchemaValidatorCode } from './meta-schema-code.ts';

/** The generated module, evaluated as CommonJS (its `require`s resolve from here). */
function generated(): ValidateFunction {
  const module = { exports: {} as unknown };
  new Function('module', 'exports', 'require', metaSchemaValidatorCode())(
    module,
    module.exports,
    createRequire(import.meta.url),
  );
  return module.exports as ValidateFunction;
}

const SCHEMAS: unknown[] = [
  { type: 'object', properties: { a: { type: 'string', minLength: 1 } }, required: ['a'] },
  { type: 'number', multipleOf: 0.01, minimum: 0 },
  { $defs: { usd: { type: 'number' } }, properties: { a: { $ref: '#/$defs/usd' } } },
  { type: 'foo' },
  { minimum: 'x' },
  { properties: { a: { items: { type: 'nope' } } } },
  { $defs: { a: { type: 1 } } },
  { anyOf: [] },
  { required: ['a', 'a'] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then
  { if: { type: 'number' }, then: { minimum: [] } },
  { multipleOf: 0 },
  { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'strin' },
  { $schema: 'http://json-schema.org/draft-07/schema#', type: 'string' },
  true,
];

function outcome(ajv: ReturnType<typeof createKeelAjv>, schema: unknown): string {
  try {
    ajv.compile(schema as object);
    return 'compiled';
  } catch (e) {
    return (e as Error).message;
  }
}

test('the generated meta-schema check refuses and accepts exactly what ajv’s own does, with the same message', () => {
  const check = generated();
  const own = createKeelAjv({}, null);
  const built = createKeelAjv({}, check);
  let refused = 0;
  for (const schema of SCHEMAS) {
    const want = outcome(own, schema);
    assert.equal(outcome(built, schema), want, JSON.stringify(schema));
    if (want.startsWith('schema is invalid')) refused++;
  }
  assert.ok(refused >= 7, `only ${refused} schemas were refused: the cases no longer test refusal`);
  // validateSchema itself answers alike, errors included.
  for (const schema of SCHEMAS.slice(0, 11)) {
    assert.equal(built.validateSchema(schema as object), own.validateSchema(schema as object));
    assert.deepEqual(built.errors, own.errors);
  }
});
