/**
 * JSON text as Keel reads it from outside (request bodies, event and writ files): bounded by
 * `InputLimits`, and strict where `JSON.parse` is lax — a key given twice in one object is a
 * problem, never "the last one wins" (two readers of the same bytes must never see two values).
 *
 * Owns the byte check before parsing, the duplicate-key scan (one pass, no recursion) and the
 * limits check of the parsed value. Returns syntax and duplicate problems as values, so each edge
 * names them with its own code; a limit breach throws `payload_too_large`. Never echoes more than
 * an excerpt of the text.
 */
import { excerpt, type InputLimits, limitError, measureText, measureValue } from './input-limits.ts';
import type { PathSegment } from './read-path.ts';
import { formatFieldPath } from './spec-problem.ts';

export type JsonTextResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly field: string; readonly message: string };

/**
 * Parses `text` as one JSON value. `what` names the input in a limit error (`request body`,
 * `event events/x.json`); `field` of a problem is where it is (`(body)` for the whole text).
 */
export function parseJsonText(text: string, limits: InputLimits, what: string): JsonTextResult {
  const big = measureText(text, limits);
  if (big) throw limitError(big, what);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, field: '(body)', message: `not valid JSON: ${excerpt((e as Error).message, 120)}` };
  }
  const dup = duplicateKey(text);
  if (dup)
    return {
      ok: false,
      field: dup.field,
      message: `duplicate key ${JSON.stringify(excerpt(dup.key, 40))}; each key may appear only once in an object`,
    };
  const breach = measureValue(value, limits);
  if (breach) throw limitError(breach, what);
  return { ok: true, value };
}

interface Level {
  /** The keys seen so far (an object), or null (a list). */
  readonly keys: Set<string> | null;
  /** The key being read, or the index of the item being read. */
  at: PathSegment;
}

/**
 * The first key that appears twice in one object of a VALID JSON text (JSON.parse accepted it),
 * and its field. Keys compare as decoded strings: `"a"` and `"\u0061"` are one key.
 */
export function duplicateKey(text: string): { key: string; field: string } | undefined {
  const levels: Level[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      let end = i + 1;
      let escaped = false;
      while (text.charCodeAt(end) !== 0x22) {
        if (text.charCodeAt(end) === 0x5c /* \ */) {
          escaped = true;
          end++;
        }
        end++;
      }
      const top = levels.at(-1);
      if (expectKey && top?.keys) {
        const key = escaped ? (JSON.parse(text.slice(i, end + 1)) as string) : text.slice(i + 1, end);
        if (top.keys.has(key)) return { key, field: fieldOf(levels.slice(0, -1), key) };
        top.keys.add(key);
        top.at = key;
        expectKey = false;
      }
      i = end;
    } else if (ch === 0x7b /* { */) {
      levels.push({ keys: new Set(), at: '' });
      expectKey = true;
    } else if (ch === 0x5b /* [ */) {
      levels.push({ keys: null, at: 0 });
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) {
      levels.pop();
    } else if (ch === 0x2c /* , */) {
      const top = levels.at(-1);
      if (top?.keys) expectKey = true;
      else if (top) top.at = (top.at as number) + 1;
    }
  }
  return undefined;
}

/** The field of `key` inside the levels above it: `payload.items[2].id`. */
function fieldOf(levels: readonly Level[], key: string): string {
  const path = [...levels.map((l) => l.at), key].map((s) => (typeof s === 'string' ? excerpt(s, 40) : s));
  return formatFieldPath(path);
}
