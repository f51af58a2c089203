/**
 * The build's standalone tool descriptor check (descriptor-schema-code.ts) judges descriptors as
 * the compiled schema does: the same verdicts and the same errors, exact cent amounts included.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { descriptorValidatorCode } from './descriptor-schema-code.ts';
import { createKeelAjv } from './keel-ajv.ts';
import { TOOL_DESCRIPTOR_SCHEMA } from './tool-descriptor-schema.ts';

/** The generated module, evaluated as CommonJS (its `require`s resolve from here). */
function generated(): ValidateFunction {
  const module = { exports: {} as unknown };
  new Function('module', 'exports', 'require', descriptorValidatorCode())(
    module,
    module.exports,
    createRequire(import.meta.url),
  );
  return module.exports as ValidateFunction;
}

const BASE = {
  name: 'issue_refund',
  description: 'refunds an order',
  args: { type: 'object' },
  effect: 'write',
  destructive: false,
  idempotent: true,
  scopes: ['refunds'],
};

const DESCRIPTORS: unknown[] = [
  BASE,
  { ...BASE, cost: 0.05 },
  { ...BASE, cost: 19.99 },
  { ...BASE, cost: 4.35 },
  { ...BASE, cost: 1.13 },
  { ...BASE, cost: 0.001 },
  { ...BASE, cost: -1 },
  { ...BASE, cost: 1e14 },
  { ...BASE, cost: { fixedUsd: 0.1, fromArg: 'amount_usd' } },
  { ...BASE, cost: { fixedUsd: 0.015 } },
  { ...BASE, cost: { fromResult: 'usage.cost_usd' } },
  { ...BASE, cost: { fromResult: 'usage..cost' } },
  { ...BASE, cost: { fixedUsd: 1, extra: true } },
  { ...BASE, cost: 'cheap' },
  { ...BASE, costs: 0.05 },
  { ...BASE, name: '9bad' },
  { ...BASE, scopes: ['ok', ''] },
  { ...BASE, effect: 'delete' },
  { ...BASE, approval: 'never' },
  { ...BASE, approval: 'always', result: { type: 'object' } },
  { ...BASE, description: undefined },
  { name: 'x' },
  [],
  'tool',
  null,
];

test('the generated descriptor check gives the compiled schema’s verdicts and errors', () => {
  const built = generated();
  const own = createKeelAjv().compile(TOOL_DESCRIPTOR_SCHEMA);
  let refused = 0;
  for (const d of DESCRIPTORS) {
    const want = own(d);
    assert.equal(built(d), want, JSON.stringify(d));
    assert.deepEqual(built.errors ?? null, own.errors ?? null, JSON.stringify(d));
    if (!want) refused++;
  }
  assert.ok(refused >= 15, `only ${refused} descriptors were refused: the cases no longer test refusal`);
  // Exact in decimal: 19.99, 4.35 and 1.13 are cents (ajv's own division refuses them), 0.001 is not.
  assert.equal(built({ ...BASE, cost: 19.99 }), true);
  assert.equal(built({ ...BASE, cost: 0.001 }), false);
});
