import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ErrorCode, type KeelError } from '../errors.ts';
import {
  excerpt,
  type InputLimits,
  JSON_LIMITS,
  limitError,
  measureText,
  measureValue,
  utf8Length,
} from './input-limits.ts';
import { isWellFormed } from './is-well-formed.ts';
import { duplicateKey, parseJsonText } from './parse-json-text.ts';

/** The reference, written the obvious (recursive) way: depth, keys + items, longest string or key. */
function sizes(v: unknown, depth = 0): { depth: number; keys: number; longest: number } {
  if (typeof v === 'string') return { depth: 0, keys: 0, longest: v.length };
  if (typeof v !== 'object' || v === null) return { depth: 0, keys: 0, longest: 0 };
  const entries = Array.isArray(v) ? v.map((x) => ['', x] as const) : Object.entries(v);
  const out = { depth: depth + 1, keys: entries.length, longest: 0 };
  for (const [k, x] of entries) {
    const s = sizes(x, depth + 1);
    out.depth = Math.max(out.depth, s.depth);
    out.keys += s.keys;
    out.longest = Math.max(out.longest, s.longest, k.length);
  }
  return out;
}

describe('measureValue', () => {
  it('finds a breach exactly when the value exceeds a limit (against a recursive reference)', () => {
    const limits: InputLimits = { maxBytes: 1e9, maxDepth: 3, maxKeys: 12, maxStringLength: 5 };
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (v) => {
        const s = sizes(v);
        const over =
          s.depth > limits.maxDepth || s.keys > limits.maxKeys || s.longest > limits.maxStringLength;
        assert.equal(measureValue(v, limits) !== undefined, over, JSON.stringify({ v, s }));
      }),
      { numRuns: 500 },
    );
  });

  it('measures a value nested a million levels deep without recursion', () => {
    let v: unknown = 1;
    for (let i = 0; i < 1_000_000; i++) v = [v];
    const breach = measureValue(v, JSON_LIMITS);
    assert.equal(breach?.limit, 'maxDepth');
    assert.equal(breach?.path.length, JSON_LIMITS.maxDepth);
  });

  it('stops at maxKeys on a graph that shares one list a billion times over', () => {
    let v: unknown = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    for (let i = 0; i < 9; i++) v = Array(10).fill(v);
    assert.equal(measureValue(v, JSON_LIMITS)?.limit, 'maxKeys');
  });

  it('leaves a cycle to validation (it is invalid, not deep)', () => {
    const a: unknown[] = [];
    a.push(a);
    assert.equal(measureValue({ a }, JSON_LIMITS), undefined);
  });
});

describe('measureText and utf8Length', () => {
  it('counts UTF-8 bytes as Buffer does', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        assert.equal(utf8Length(s), Buffer.byteLength(s, 'utf8'));
      }),
    );
  });

  it('breaches maxBytes by bytes, not characters', () => {
    const limits = { ...JSON_LIMITS, maxBytes: 10 };
    assert.equal(measureText('é'.repeat(5), limits), undefined);
    assert.deepEqual(measureText('é'.repeat(6), limits), {
      limit: 'maxBytes',
      max: 10,
      got: 12,
      field: '',
      path: [],
    });
  });
});

describe('limitError', () => {
  it('is payload_too_large naming the limit, its value, the field and the place', () => {
    const e: KeelError = limitError(
      { limit: 'maxDepth', max: 32, field: 'steps[0].args.a', path: ['steps', 0, 'args', 'a'] },
      'w.yaml',
      { line: 7, column: 9 },
    );
    assert.equal(e.code, ErrorCode.payloadTooLarge);
    assert.equal(e.message, 'w.yaml:7:9: steps[0].args.a: more than 32 levels of nesting (limit maxDepth)');
    assert.deepEqual(e.details, { limit: 'maxDepth', max: 32, field: 'steps[0].args.a', line: 7, column: 9 });
  });
});

describe('excerpt', () => {
  it('is at most max characters, well formed, and the whole string when it fits', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 200 }),
        fc.integer({ min: 2, max: 100 }),
        (s, max) => {
          const x = excerpt(s, max);
          assert.ok(x.length <= Math.max(max, 1), `${x.length} > ${max}`);
          assert.ok(isWellFormed(x));
          if (s.length <= max && isWellFormed(s)) assert.equal(x, s);
        },
      ),
    );
  });
});

describe('parseJsonText', () => {
  it('reads what JSON.parse reads, for any JSON text without repeated keys', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.boolean(), (v, pretty) => {
        const text = JSON.stringify(v, null, pretty ? 2 : undefined);
        assert.deepEqual(parseJsonText(text, JSON_LIMITS, 'body'), { ok: true, value: JSON.parse(text) });
      }),
    );
  });

  it('finds a key given twice in one object, however it is escaped, and names its field', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
        fc.string(),
        fc.boolean(),
        (rest, key, escaped) => {
          const spelled = escaped
            ? `"${key
                .split('')
                .map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
                .join('')}"`
            : JSON.stringify(key);
          const inner = JSON.stringify({ ...rest, [key]: 1 }).slice(1, -1);
          const text = `{"payload": {${inner}, ${spelled}: 2}}`;
          const r = parseJsonText(text, JSON_LIMITS, 'body');
          assert.equal(r.ok, false, text);
          assert.match(!r.ok ? r.message : '', /^duplicate key /);
        },
      ),
    );
    assert.deepEqual(duplicateKey('[{"a": 1}, {"a": 2, "b": [{"c": 1, "c": 2}]}]'), {
      key: 'c',
      field: '[1].b[0].c',
    });
    assert.deepEqual(duplicateKey('{"id": "a", "id": "b"}'), { key: 'id', field: 'id' });
    assert.equal(duplicateKey('{"a": {"a": 1}, "b": "\\"a\\": 2"}'), undefined);
  });

  it('returns syntax problems as values with a short message, and throws past a limit', () => {
    const bad = parseJsonText(`{"a": ${'x'.repeat(100_000)}`, JSON_LIMITS, 'body');
    assert.equal(bad.ok, false);
    assert.ok(!bad.ok && bad.field === '(body)' && bad.message.length < 200, JSON.stringify(bad));
    assert.throws(
      () => parseJsonText(`${'['.repeat(100)}${']'.repeat(100)}`, JSON_LIMITS, 'request body'),
      (e: KeelError) => e.code === ErrorCode.payloadTooLarge && e.details.limit === 'maxDepth',
    );
  });
});
