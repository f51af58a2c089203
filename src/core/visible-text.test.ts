import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DIRECTION_CONTROLS, visibleText, visibleValue } from './visible-text.ts';

const CONTROLS = [
  ...[0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069],
  ...[0x200e, 0x200f, 0x061c],
].map((c) => String.fromCodePoint(c));

/** Text mixing direction controls, right-to-left letters and anything else. */
const text = fc
  .array(
    fc.oneof(
      fc.constantFrom(...CONTROLS),
      fc.constantFrom('א', 'ب', '"', ' ', '.', 'exe', '⟨U+202E⟩'),
      fc.string({ unit: 'grapheme' }),
    ),
  )
  .map((parts) => parts.join(''));

const hasControl = (s: string) => new RegExp(DIRECTION_CONTROLS.source).test(s);

describe('visibleText', () => {
  it('shows the issue’s spoofed file name as written, not as it would be drawn', () => {
    assert.equal(visibleText('invoice-\u202Efdp.exe'), 'invoice-⟨U+202E⟩fdp.exe');
    assert.equal(
      visibleText('\u2067x\u2069 \u200E\u200F\u061C'),
      '⟨U+2067⟩x⟨U+2069⟩ ⟨U+200E⟩⟨U+200F⟩⟨U+061C⟩',
    );
  });

  it('leaves no direction control, changes nothing else, and is idempotent, for any text', () => {
    fc.assert(
      fc.property(text, (s) => {
        const v = visibleText(s);
        assert.equal(hasControl(v), false);
        assert.equal(visibleText(v), v);
        // One escape for each control, in its place: undoing them gives the text back.
        const undone = v.replace(/⟨U\+([0-9A-F]{4})⟩/g, (_, hex: string) =>
          String.fromCodePoint(parseInt(hex, 16)),
        );
        assert.equal(
          undone,
          s.replace(/⟨U\+([0-9A-F]{4})⟩/g, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16))),
        );
        if (!hasControl(s)) assert.equal(v, s);
      }),
    );
  });

  it('visibleValue escapes every string of a JSON value, keys included, and keeps its shape', () => {
    assert.deepEqual(visibleValue({ 'a\u202E': ['x\u2066', 1, true, null, { b: 'c\u200F' }] }), {
      'a⟨U+202E⟩': ['x⟨U+2066⟩', 1, true, null, { b: 'c⟨U+200F⟩' }],
    });
    fc.assert(
      fc.property(
        fc.jsonValue({
          stringUnit: fc.oneof(fc.constantFrom(...CONTROLS), fc.string({ unit: 'grapheme', maxLength: 1 })),
        }),
        (v) => {
          const out = visibleValue(v);
          assert.equal(hasControl(JSON.stringify(out)), false);
          if (!hasControl(JSON.stringify(v))) assert.deepEqual(out, v);
        },
      ),
    );
  });
});
