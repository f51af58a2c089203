import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { isKeelError } from '../core/errors.ts';
import { validateSpec } from '../core/spec/index.ts';
import { EVERY_TENANT, envExposure } from './env-exposure.ts';

const tenantArb = fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/);
const nameArb = fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,10}$/);
const configArb = fc.dictionary(
  fc.oneof(tenantArb, fc.constant(EVERY_TENANT)),
  fc.array(nameArb, { maxLength: 4 }),
  {
    maxKeys: 4,
  },
);

const spec = (env: string[]) =>
  validateSpec(
    {
      id: 'reads',
      version: 1,
      status: 'DRAFT',
      env,
      steps: [{ name: 'a', tool: 'core.noop' }],
      limits: { maxSteps: 1, maxCostUsd: 0 },
    },
    'reads.yaml',
  );

describe('env exposure', () => {
  test('nothing is exposed without a config', () => {
    const e = envExposure(undefined);
    assert.equal(e.exposes('acme', 'HOME'), false);
    assert.throws(
      () => e.checkSpec(spec(['HOME']), 'acme', 'reads.yaml'),
      /env\.HOME is not exposed to tenant acme/,
    );
    e.checkSpec(spec([]), 'acme', 'reads.yaml');
  });

  test('a tenant sees exactly its own names and those exposed to every tenant (property)', () => {
    fc.assert(
      fc.property(
        configArb,
        fc.oneof(tenantArb, fc.constantFrom('constructor', '__proto__', 'toString')),
        nameArb,
        (config, tenant, name) => {
          const own = (t: string) => (Object.hasOwn(config, t) ? config[t]! : []);
          const expected = own(tenant).includes(name) || own(EVERY_TENANT).includes(name);
          assert.equal(envExposure(config).exposes(tenant, name), expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('the publish check refuses every unexposed name, one problem each, naming the tenant and how to expose it', () => {
    const e = envExposure({ acme: ['REGION'], '*': ['LOG_LEVEL'] });
    e.checkSpec(spec(['REGION', 'LOG_LEVEL']), 'acme', 'reads.yaml');
    assert.throws(
      () => e.checkSpec(spec(['REGION', 'DATABASE_URL', 'LOG_LEVEL', 'STRIPE_KEY']), 'globex', 'reads.yaml'),
      (err: unknown) => {
        assert.ok(isKeelError(err) && err.code === 'spec_invalid');
        const problems = err.details.problems as { file: string; field: string; message: string }[];
        assert.deepEqual(
          problems.map((p) => [p.file, p.field]),
          [
            ['reads.yaml', 'env[0]'],
            ['reads.yaml', 'env[1]'],
            ['reads.yaml', 'env[3]'],
          ],
        );
        assert.match(problems[1]!.message, /env\.DATABASE_URL is not exposed to tenant globex/);
        assert.match(problems[1]!.message, /--expose-env globex=DATABASE_URL/);
        assert.match(
          problems[1]!.message,
          /createKeel\(\{ exposeEnv: \{ "globex": \["DATABASE_URL"\] \} \}\)/,
        );
        return true;
      },
    );
  });

  test('a function config is asked per tenant; bad names are refused naming the field', () => {
    const e = envExposure((t) => (t === 'acme' ? ['API_TOKEN'] : undefined));
    assert.equal(e.exposes('acme', 'API_TOKEN'), true);
    assert.equal(e.exposes('globex', 'API_TOKEN'), false);
    assert.throws(
      () => envExposure({ acme: ['lower'] }),
      /exposeEnv\.acme\[0\]: expected an UPPER_CASE variable name/,
    );
    assert.throws(
      () => envExposure({ acme: 'REGION' as unknown as string[] }),
      /exposeEnv\.acme: expected a list of variable names/,
    );
    assert.throws(() => envExposure(() => ['a-b']).exposes('t', 'X'), /exposeEnv\("t"\)\[0\]/);
  });
});
