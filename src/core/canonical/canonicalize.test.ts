import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import reference from 'canonicalize';
import fc from 'fast-check';
import { ErrorCode, isKeelError } from '../errors.ts';
import { canonicalize, freezeCanonical } from './canonicalize.ts';
import { digestBytes, hashOf, isDigest } from './digest.ts';

/** Runs `canonicalize` expecting a refusal; returns the refusal's details. */
function refusal(value: unknown): { path: string; problem: string } {
  try {
    canonicalize(value);
  } catch (e) {
    assert.ok(isKeelError(e), `expected a KeelError, got ${String(e)}`);
    assert.equal(e.code, ErrorCode.canonicalInvalid);
    const { path, problem } = e.details as { path: string; problem: string };
    assert.ok(e.message.includes(path), `message ${JSON.stringify(e.message)} should name ${path}`);
    return { path, problem };
  }
  return assert.fail(`expected canonicalize to refuse ${String(value)}`);
}

/** The IEEE 754 double with the given 16 hex digit bit pattern. */
function double(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

/** Replaces what Keel deliberately refuses (-0, unsafe integers) with values it accepts. */
function keelSafe(v: unknown): unknown {
  if (typeof v === 'number') {
    if (Object.is(v, -0)) return 0;
    if (Number.isInteger(v) && !Number.isSafeInteger(v)) return String(v);
    return v;
  }
  if (Array.isArray(v)) return v.map(keelSafe);
  if (typeof v === 'object' && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, keelSafe(x)]));
  }
  return v;
}

/** A small deterministic PRNG, so a shuffle is reproducible from a fast-check seed. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The same value with every object's keys inserted in a shuffled order (Object.fromEntries keeps `__proto__` own). */
function shuffleKeys(v: unknown, rand: () => number): unknown {
  if (Array.isArray(v)) return v.map((x) => shuffleKeys(x, rand));
  if (typeof v === 'object' && v !== null) {
    const entries = Object.entries(v);
    for (let i = entries.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [entries[i], entries[j]] = [entries[j]!, entries[i]!];
    }
    return Object.fromEntries(entries.map(([k, x]) => [k, shuffleKeys(x, rand)]));
  }
  return v;
}

const keelJson = fc.jsonValue().map(keelSafe);

describe('canonicalize: RFC 8785 examples', () => {
  it('refuses the 1E30 of the §3.2.2 sample, since Keel allows only safe integers', () => {
    const input = String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`;
    const { path, problem } = refusal(JSON.parse(input));
    assert.equal(path, '$.numbers[1]');
    assert.match(problem, /safe integer/);
  });

  it('canonicalizes the rest of the §3.2.2 sample exactly as the RFC prints it', () => {
    const input = String.raw`{
      "numbers": [333333333.33333329, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`;
    const expected = String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`;
    assert.equal(canonicalize(JSON.parse(input)), expected);
  });

  it('sorts properties by UTF-16 code units as in §3.2.3, emoji (a surrogate pair) before U+FB33', () => {
    const input = String.raw`{
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis"
    }`;
    const expected =
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
      '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}';
    assert.equal(canonicalize(JSON.parse(input)), expected);
  });

  it('ignores locale when sorting (the "French" reference case)', () => {
    const value = {
      sin: 'ignore locale',
      pêche: 'but canonicalization MUST',
      péché: 'is wrong according to French',
      peach: 'This sorting order',
    };
    assert.equal(
      canonicalize(value),
      '{"peach":"This sorting order","péché":"is wrong according to French","pêche":"but canonicalization MUST","sin":"ignore locale"}',
    );
  });

  it('sorts nested structures and normalises 56.0 to 56 (the "structures" reference case)', () => {
    const input =
      '{"1": {"f": {"f": "hi","F": 5} ,"\\n": 56.0},"10": { },"": "empty","a": { },"111": [ {"e": "yes","E": "no" } ],"A": { }}';
    assert.equal(
      canonicalize(JSON.parse(input)),
      '{"":"empty","1":{"\\n":56,"f":{"F":5,"f":"hi"}},"10":{},"111":[{"E":"no","e":"yes"}],"A":{},"a":{}}',
    );
  });

  it('keeps array order and sorts objects inside arrays (the "arrays" reference case)', () => {
    assert.equal(
      canonicalize(JSON.parse('[56, {"d": true, "10": null, "1": [ ]}]')),
      '[56,{"1":[],"10":null,"d":true}]',
    );
  });

  it('escapes only what JSON requires and leaves U+0080, U+007F and "</script>" alone (the "weird" reference case)', () => {
    const input = String.raw`{
      "\u20ac": "Euro Sign", "\r": "Carriage Return", "\u000a": "Newline", "1": "One",
      "\u0080": "Control\u007f", "\ud83d\ude02": "Smiley", "\u00f6": "Latin Small Letter O With Diaeresis",
      "\ufb33": "Hebrew Letter Dalet With Dagesh", "</script>": "Browser Challenge"
    }`;
    const expected =
      '{"\\n":"Newline","\\r":"Carriage Return","1":"One","</script>":"Browser Challenge","\u0080":"Control\u007f",' +
      '"ö":"Latin Small Letter O With Diaeresis","€":"Euro Sign","\ud83d\ude02":"Smiley","\ufb33":"Hebrew Letter Dalet With Dagesh"}';
    assert.equal(canonicalize(JSON.parse(input)), expected);
  });

  it('escapes control characters as lower-case \\u00xx except the five short escapes', () => {
    assert.equal(
      canonicalize('\u0000\u0001\u001f\b\t\n\f\r"\\/'),
      String.raw`"\u0000\u0001\u001f\b\t\n\f\r\"\\/"`,
    );
  });

  // Appendix B: IEEE 754 bit patterns and their canonical text. Keel refuses -0 and integers outside
  // the safe range (DESIGN invariant 1), so those rows must be refused rather than printed.
  const appendixB: readonly [hex: string, expected: string | 'refused'][] = [
    ['0000000000000000', '0'],
    ['8000000000000000', 'refused'], // -0
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', 'refused'], // 1.7976931348623157e+308 is an integer
    ['ffefffffffffffff', 'refused'],
    ['4340000000000000', 'refused'], // 9007199254740992 = 2^53
    ['c340000000000000', 'refused'],
    ['4430000000000000', 'refused'], // 295147905179352830000
    ['44b52d02c7e14af5', 'refused'], // 9.999999999999997e+22
    ['44b52d02c7e14af6', 'refused'], // 1e+23
    ['44b52d02c7e14af7', 'refused'],
    ['444b1ae4d6e2ef4e', 'refused'], // 999999999999999700000
    ['444b1ae4d6e2ef4f', 'refused'],
    ['444b1ae4d6e2ef50', 'refused'], // 1e+21
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ];
  for (const [hex, expected] of appendixB) {
    if (expected === 'refused') {
      it(`refuses the Appendix B number ${hex} (${double(hex)}) with canonical_invalid`, () => {
        assert.equal(refusal([double(hex)]).path, '$[0]');
      });
    } else {
      it(`prints the Appendix B number ${hex} as ${expected}`, () => {
        assert.equal(canonicalize(double(hex)), expected);
      });
    }
  }

  it('refuses the Appendix B NaN and Infinity patterns', () => {
    assert.match(refusal(double('7fffffffffffffff')).problem, /not a finite number/);
    assert.match(refusal(double('7ff0000000000000')).problem, /not a finite number/);
  });
});

describe('canonicalize: refusals name the path of the offending value', () => {
  const cases: readonly [name: string, make: (bad: unknown) => unknown, path: string][] = [
    ['at the top level', (bad) => bad, '$'],
    ['inside a nested object in an array', (bad) => ({ a: [1, 2, { b: bad }] }), '$.a[2].b'],
    ['as an array element', (bad) => ({ list: ['ok', bad] }), '$.list[1]'],
  ];
  const bads: readonly [name: string, value: unknown, problem: RegExp][] = [
    ['NaN', Number.NaN, /not a finite number/],
    ['Infinity', Number.POSITIVE_INFINITY, /not a finite number/],
    ['-Infinity', Number.NEGATIVE_INFINITY, /not a finite number/],
    ['-0', -0, /-0 has no canonical form/],
    ['2**53', 2 ** 53, /outside the safe integer range/],
    ['-(2**53)', -(2 ** 53), /outside the safe integer range/],
    ['a lone high surrogate', 'ab\uD800', /lone surrogate/],
    ['a lone low surrogate', '\uDC00cd', /lone surrogate/],
    ['a reversed surrogate pair', '\uDE00\uD83D', /lone surrogate/],
    ['undefined', undefined, /undefined has no JSON form/],
    ['a function', () => 1, /function has no JSON form/],
    ['a symbol', Symbol('s'), /symbol has no JSON form/],
    ['a bigint', 10n, /bigint has no JSON form/],
    ['a Date', new Date(0), /Date is not a plain JSON object/],
    ['a Map', new Map([['a', 1]]), /Map is not a plain JSON object/],
    [
      'a class instance',
      new (class Point {
        x = 1;
      })(),
      /Point is not a plain JSON object/,
    ],
    ['a boxed string', Object('text'), /String is not a plain JSON object/],
    ['a Uint8Array', new Uint8Array([1]), /Uint8Array is not a plain JSON object/],
  ];
  for (const [badName, bad, problem] of bads) {
    for (const [where, make, path] of cases) {
      it(`refuses ${badName} ${where}, naming ${path}`, () => {
        const r = refusal(make(bad));
        assert.equal(r.path, path);
        assert.match(r.problem, problem);
      });
    }
  }

  it('refuses a key holding a lone surrogate, naming the key in the path', () => {
    const r = refusal({ ok: { 'x\uDBFF': 1 } });
    assert.equal(r.path, '$.ok.x\uDBFF');
    assert.match(r.problem, /lone surrogate/);
  });

  it('refuses a hole in a sparse array as undefined', () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is what is under test
    const r = refusal([1, , 3]);
    assert.equal(r.path, '$[1]');
    assert.match(r.problem, /undefined/);
  });

  it('refuses undefined as an object property value instead of dropping the field like JSON.stringify', () => {
    assert.equal(JSON.stringify({ a: undefined }), '{}');
    assert.equal(refusal({ a: 1, b: undefined }).path, '$.b');
  });

  it('refuses a value that contains itself with canonical_invalid, not a stack overflow', () => {
    const loop: Record<string, unknown> = { name: 'loop' };
    loop.self = { again: loop };
    const r = refusal({ root: loop });
    assert.equal(r.path, '$.root.self.again');
    assert.match(r.problem, /cycle/);
    const list: unknown[] = [1];
    list.push(list);
    assert.equal(refusal(list).path, '$[1]');
  });

  it('accepts the same object twice when it is shared but not cyclic', () => {
    const shared = { a: 1 };
    assert.equal(canonicalize({ x: shared, y: [shared, shared] }), '{"x":{"a":1},"y":[{"a":1},{"a":1}]}');
  });

  it('accepts the safe integer extremes and null-prototype objects', () => {
    assert.equal(
      canonicalize([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]),
      '[9007199254740991,-9007199254740991]',
    );
    const bare = Object.create(null) as Record<string, unknown>;
    bare.b = 2;
    bare.a = 1;
    assert.equal(canonicalize(bare), '{"a":1,"b":2}');
  });

  it('ignores toJSON and refuses the object instead of trusting its own serialisation', () => {
    const sneaky = { toJSON: () => 'trust me' };
    assert.match(refusal({ v: sneaky }).problem, /function has no JSON form/);
  });
});

describe('canonicalize: properties', () => {
  it('gives the same text and hash whatever order the keys were inserted in', () => {
    fc.assert(
      fc.property(keelJson, fc.integer(), (value, seed) => {
        const shuffled = shuffleKeys(value, mulberry32(seed));
        assert.equal(canonicalize(shuffled), canonicalize(value));
        assert.equal(hashOf(shuffled), hashOf(value));
      }),
      { numRuns: 300 },
    );
  });

  it('matches the canonicalize reference implementation for every value Keel accepts', () => {
    fc.assert(
      fc.property(keelJson, (value) => {
        assert.equal(canonicalize(value), reference(value));
      }),
      { numRuns: 500 },
    );
  });

  it('orders keys by UTF-16 code units, for small and large objects alike', () => {
    // U+FB01 sorts after U+1F600 by code units (0xFB01 > 0xD83D), before it by code point.
    const keys = ['\uFB01', '\u{1F600}', 'b', 'a', 'B', '', 'aa', '\u00e9', '10', '9'];
    const small = Object.fromEntries(keys.map((k, i) => [k, i]));
    const large = Object.fromEntries(
      [...keys, ...Array.from({ length: 20 }, (_, i) => `k${19 - i}`)].map((k, i) => [k, i]),
    );
    for (const v of [small, large]) assert.equal(canonicalize(v), reference(v));
    assert.ok(canonicalize(small).indexOf('\u{1F600}') < canonicalize(small).indexOf('\uFB01'));
  });

  it('matches the reference implementation on numbers across the whole double range', () => {
    const accepted = fc
      .double({ noNaN: true, noDefaultInfinity: true })
      .filter((n) => !Object.is(n, -0) && (!Number.isInteger(n) || Number.isSafeInteger(n)));
    fc.assert(
      fc.property(accepted, (n) => {
        assert.equal(canonicalize(n), reference(n));
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts every safe integer and refuses every integral double outside the safe range', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        assert.equal(canonicalize(n), String(Object.is(n, -0) ? 0 : n));
      }),
    );
    const unsafe = fc
      .double({ noNaN: true, noDefaultInfinity: true })
      .filter((n) => Number.isInteger(n) && !Number.isSafeInteger(n));
    fc.assert(
      fc.property(unsafe, (n) => {
        assert.match(refusal({ n }).problem, /safe integer/);
      }),
    );
  });

  it('agrees with the reference on strings of arbitrary UTF-16 code units, refusing exactly the lone surrogates', () => {
    const codeUnits = fc
      .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 12 })
      .map((us) => String.fromCharCode(...us));
    const withSurrogates = fc.oneof(codeUnits, fc.string({ unit: 'binary' }));
    fc.assert(
      fc.property(withSurrogates, (s) => {
        let expected: string | undefined;
        try {
          expected = reference(s);
        } catch {
          expected = undefined;
        }
        if (expected === undefined) {
          assert.match(refusal({ k: s }).problem, /lone surrogate/);
          assert.match(refusal({ [s]: 1 }).problem, /lone surrogate/);
        } else {
          assert.equal(canonicalize(s), expected);
          assert.equal(canonicalize({ [s]: s }), `{${expected}:${expected}}`);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('parses back to a value deep-equal to the input', () => {
    fc.assert(
      fc.property(keelJson, (value) => {
        assert.deepStrictEqual(JSON.parse(canonicalize(value)), value);
      }),
      { numRuns: 500 },
    );
  });

  it('is idempotent: canonicalizing the parsed canonical text gives the same text', () => {
    fc.assert(
      fc.property(keelJson, (value) => {
        const once = canonicalize(value);
        assert.equal(canonicalize(JSON.parse(once)), once);
      }),
    );
  });
});

describe('digest', () => {
  it('hashes the UTF-8 bytes of the canonical form, printed sha256:<64 hex>', () => {
    fc.assert(
      fc.property(keelJson, (value) => {
        const d = hashOf(value);
        assert.match(d, /^sha256:[0-9a-f]{64}$/);
        const expected = createHash('sha256')
          .update(Buffer.from(canonicalize(value), 'utf8'))
          .digest('hex');
        assert.equal(d, `sha256:${expected}`);
        assert.ok(isDigest(d));
      }),
    );
  });

  it('matches the FIPS 180-2 "abc" test vector and treats a string as its UTF-8 bytes', () => {
    assert.equal(
      digestBytes('abc'),
      'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    assert.equal(digestBytes(''), 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(digestBytes('€ and 😀'), digestBytes(new TextEncoder().encode('€ and 😀')));
  });

  it('gives different values different hashes and equal values equal hashes', () => {
    assert.equal(hashOf({ a: 1, b: [true, null] }), hashOf({ b: [true, null], a: 1 }));
    assert.notEqual(hashOf({ a: 1 }), hashOf({ a: '1' }));
    assert.notEqual(hashOf([1, 2]), hashOf([2, 1]));
    assert.equal(hashOf('x'), digestBytes('"x"'));
  });

  it('refuses to hash what it cannot canonicalize', () => {
    assert.throws(
      () => hashOf({ amount: 0.1, when: new Date(0) }),
      (e: unknown) => isKeelError(e) && e.code === ErrorCode.canonicalInvalid && e.details.path === '$.when',
    );
  });

  it('isDigest accepts only sha256: followed by 64 lower-case hex digits', () => {
    const hex = 'a'.repeat(64);
    assert.ok(isDigest(`sha256:${hex}`));
    for (const bad of [
      hex,
      `sha256:${hex.slice(1)}`,
      `sha256:${hex}0`,
      `sha256:${'A'.repeat(64)}`,
      `sha256:${'g'.repeat(64)}`,
      `sha512:${hex}`,
      ` sha256:${hex}`,
      `sha256:${hex}\n`,
      42,
      null,
      undefined,
      { toString: () => `sha256:${hex}` },
    ]) {
      assert.equal(isDigest(bad), false, `isDigest(${JSON.stringify(String(bad))})`);
    }
  });
});

describe('freezeCanonical', () => {
  const encodable = fc.jsonValue().filter((v) => {
    try {
      canonicalize(v);
      return true;
    } catch {
      return false;
    }
  });

  it('splices a frozen value in with the same bytes a fresh encoding gives, and freezes it deeply', () => {
    fc.assert(
      fc.property(encodable, encodable, (inner, other) => {
        const frozen = freezeCanonical({ inner: structuredClone(inner), list: [structuredClone(other)] });
        const fresh = { inner: structuredClone(inner), list: [structuredClone(other)] };
        assert.equal(canonicalize({ a: frozen, b: [frozen] }), canonicalize({ a: fresh, b: [fresh] }));
        assert.ok(Object.isFrozen(frozen) && Object.isFrozen(frozen.list));
      }),
    );
  });

  it('refuses what canonicalize refuses, remembering nothing', () => {
    assert.throws(
      () => freezeCanonical({ x: Number.NaN }),
      (e: unknown) => isKeelError(e),
    );
  });
});

describe('canonicalize: large strings met again', () => {
  it('encodes a large string from memory with the bytes a fresh encoding gives, equal copies alike', () => {
    const large = `${'a "quoted" ünïcode 📦 line\n'.repeat(400)}`;
    const copy = JSON.parse(JSON.stringify(large)) as string;
    const first = canonicalize({ answer: large });
    assert.equal(first, `{"answer":${reference(large)}}`);
    assert.equal(canonicalize({ answer: large }), first);
    assert.equal(canonicalize([copy]), `[${reference(large)}]`);
  });

  it('still refuses a large string with a lone surrogate, naming its path, after its well-formed twin', () => {
    const large = 'x'.repeat(9000);
    assert.equal(canonicalize(large), `"${large}"`);
    const broken = `${large.slice(0, 4500)}\uD800${large.slice(4501)}`;
    for (let i = 0; i < 2; i++) {
      const r = refusal({ answer: broken });
      assert.equal(r.path, '$.answer');
      assert.match(r.problem, /lone surrogate/);
    }
  });
});
