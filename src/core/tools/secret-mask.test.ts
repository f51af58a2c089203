/**
 * The secret mask: a secret is masked in every encoding a server may echo it in — as it is,
 * JSON-escaped (`\/`, PHP's default), `\u` escapes, HTML character references, percent-encoding,
 * base64 and base64url at any alignment — in text and in parsed values (keys, strings, numbers),
 * for any secret and any text around it (properties); text without the secret is left alone.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { secretMask } from './secret-mask.ts';

const NAME = 'SHOP_TOKEN';
const LABEL = `[secret ${NAME}]`;

const units = (s: string) => Array.from({ length: s.length }, (_, i) => s.charCodeAt(i));
const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');

/** Each encoding a server may echo a secret in, by name. */
export const ENCODINGS: Record<string, (s: string) => string> = {
  plain: (s) => s,
  'JSON-escaped': (s) => JSON.stringify(s).slice(1, -1),
  'JSON-escaped with \\/ (PHP)': (s) => JSON.stringify(s).slice(1, -1).replace(/\//g, '\\/'),
  '\\u escapes': (s) =>
    units(s)
      .map((u) => `\\u${hex(u, 4)}`)
      .join(''),
  '\\u escapes, upper case': (s) =>
    units(s)
      .map((u) => `\\u${hex(u, 4).toUpperCase()}`)
      .join(''),
  'HTML decimal references': (s) => Array.from(s, (c) => `&#${c.codePointAt(0)};`).join(''),
  'HTML hex references': (s) => Array.from(s, (c) => `&#x${c.codePointAt(0)!.toString(16)};`).join(''),
  'HTML escaped (&amp; &lt; &gt; &quot; &#39;)': (s) =>
    s
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&#39;'),
  'percent-encoded': (s) => encodeURIComponent(s),
  'percent-encoded, lower-case hex': (s) =>
    encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
  'form-encoded': (s) => encodeURIComponent(s).replace(/%20/g, '+'),
  base64: (s) => Buffer.from(s).toString('base64'),
  base64url: (s) => Buffer.from(s).toString('base64url'),
};

const secretArb = fc
  .string({ minLength: 6, maxLength: 40, unit: 'grapheme' })
  .filter((s) => !s.includes(LABEL));
const aroundArb = fc.string({ maxLength: 20 });

describe('secretMask', () => {
  for (const [name, encode] of Object.entries(ENCODINGS)) {
    it(`masks a secret echoed ${name}, whatever surrounds it (property)`, () => {
      fc.assert(
        fc.property(secretArb, aroundArb, aroundArb, (secret, before, after) => {
          const echoed = encode(secret);
          const out = secretMask(new Map([[NAME, secret]])).text(`${before}${echoed}${after}`);
          assert.ok(!out.includes(echoed), JSON.stringify({ secret, echoed, out }));
          assert.ok(out.includes(LABEL), JSON.stringify({ secret, echoed, out }));
        }),
        { numRuns: 200 },
      );
    });
  }

  it('base64 at any alignment inside a longer blob: no decodable run holds the secret (property)', () => {
    fc.assert(
      fc.property(
        secretArb,
        fc.uint8Array({ maxLength: 8 }),
        fc.uint8Array({ maxLength: 8 }),
        fc.boolean(),
        (secret, pre, post, url) => {
          const blob = Buffer.concat([pre, Buffer.from(secret), post]).toString(url ? 'base64url' : 'base64');
          const out = secretMask(new Map([[NAME, secret]])).text(blob);
          for (const run of out.split(LABEL)) {
            const decoded = Buffer.from(run, url ? 'base64url' : 'base64');
            assert.ok(!decoded.includes(Buffer.from(secret)), JSON.stringify({ secret, blob, out }));
          }
          assert.ok(out.includes(LABEL));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('masks any mix of escapes, character by character', () => {
    const secret = 'sk/CANARY+shop/tok==';
    const mask = secretMask(new Map([[NAME, secret]]));
    for (const echoed of [
      'sk\\/CANARY+shop\\/tok==',
      'sk\\u002FCANARY\\u002bshop\\/tok\\u003D=',
      'sk&#47;CANARY&#x2B;shop&sol;tok&equals;=',
      'sk%2FCANARY%2Bshop/tok%3d=',
      'sk\\x2fCANARY+shop/tok==',
    ])
      assert.equal(mask.text(`<p>${echoed}</p>`), `<p>${LABEL}</p>`, echoed);
  });

  it('in a parsed value: keys, strings at any depth, and numbers that hold an all-digit secret', () => {
    const mask = secretMask(
      new Map([
        [NAME, 'sk/CANARY+shop/tok=='],
        ['PIN', '0086753091'],
      ]),
    );
    assert.deepEqual(
      mask.value({
        token: 'sk/CANARY+shop/tok==',
        'sk/CANARY+shop/tok==': [
          1,
          { inner: `b64 ${Buffer.from('sk/CANARY+shop/tok==').toString('base64')}` },
        ],
        pin: 86753091,
        pinText: 'pin 0086753091',
        longer: 100867530919,
        other: 8675309,
        nested: JSON.stringify({ t: 'sk/CANARY+shop/tok==' }),
      }),
      {
        token: LABEL,
        [LABEL]: [1, { inner: `b64 ${LABEL}` }],
        pin: '[secret PIN]',
        pinText: 'pin [secret PIN]',
        longer: '1[secret PIN]9',
        other: 8675309,
        nested: `{"t":"${LABEL}"}`,
      },
    );
  });

  it('leaves text without the secret alone, and masks the longer of two secrets whole', () => {
    const mask = secretMask(
      new Map([
        ['A', 'abc123'],
        ['B', 'abc123-long'],
      ]),
    );
    const text = 'nothing here: abc12, %61%62%63, YWJj, &#97;bc';
    assert.equal(mask.text(text), text);
    assert.equal(mask.text('x abc123-long y abc123'), 'x [secret B] y [secret A]');
    assert.equal(secretMask(new Map([['E', '']])).text('anything'), 'anything');
  });
});
