import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { EVERY_TENANT } from '../app/index.ts';
import { isKeelError } from '../core/errors.ts';
import { parseExposeEnv } from './expose-env-option.ts';

const configArb = fc.dictionary(
  fc.oneof(fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/), fc.constant(EVERY_TENANT)),
  fc.array(fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,10}$/), { maxLength: 4 }),
  { maxKeys: 4 },
);

describe('--expose-env', () => {
  test('parses TENANT=NAMES entries separated by ";" or spaces, merging repeats', () => {
    assert.deepEqual(parseExposeEnv('acme=API_TOKEN,REGION; *=REGION  globex=X acme=Y'), {
      acme: ['API_TOKEN', 'REGION', 'Y'],
      '*': ['REGION'],
      globex: ['X'],
    });
    assert.deepEqual(parseExposeEnv(''), {});
    const odd = parseExposeEnv('constructor=A;__proto__=B') as Record<string, string[]>;
    assert.deepEqual(Object.keys(odd), ['constructor', '__proto__']);
    assert.deepEqual(
      [odd.constructor, Object.getOwnPropertyDescriptor(odd, '__proto__')?.value],
      [['A'], ['B']],
    );
  });

  test('what it prints back parses to the same exposure (property)', () => {
    fc.assert(
      fc.property(configArb, (config) => {
        const text = Object.entries(config)
          .filter(([, names]) => names.length > 0)
          .map(([t, names]) => `${t}=${names.join(',')}`)
          .join(';');
        const parsed = parseExposeEnv(text) as Record<string, string[]>;
        for (const [t, names] of Object.entries(config))
          if (names.length > 0)
            assert.deepEqual(Object.hasOwn(parsed, t) ? parsed[t] : undefined, [...new Set(names)]);
      }),
      { numRuns: 200 },
    );
  });

  test('a malformed entry is a usage error naming the option and the entry', () => {
    for (const bad of ['REGION', 'acme=', '=REGION', 'acme=REGION;globex'])
      assert.throws(
        () => parseExposeEnv(bad),
        (e: unknown) =>
          isKeelError(e) &&
          e.code === 'usage' &&
          e.details.field === 'expose-env' &&
          /--expose-env: expected TENANT=NAME/.test(e.message),
        bad,
      );
    assert.throws(() => parseExposeEnv('x', 'KEEL_EXPOSE_ENV'), /KEEL_EXPOSE_ENV: expected TENANT=NAME/);
  });
});
