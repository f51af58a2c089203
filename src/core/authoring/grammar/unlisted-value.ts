/**
 * A value said for an enum argument that the enum does not take ("build it as an excel file" for a
 * format of csv or json): fill-args.ts asks about it rather than drop it or pick another value.
 */
import { FILLER } from '../request-words.ts';

/** Words that say which one, never a value: "as a separate file", "in its own format". */
const NOT_A_VALUE = new Set([
  'separate',
  'single',
  'new',
  'own',
  'same',
  'different',
  'other',
  'the',
  'one',
  'their',
  'its',
]);

/**
 * A value said for enum argument `n` in the clause's words (a format's "as an excel file", "in pdf
 * format", "as a zip archive"; a region's "in the moon region"), when the enum has no value it names: the word, else undefined.
 */
export function unlistedValue(text: string, n: string): string | undefined {
  // A file's kind ("an excel file") is said of a format, type or kind argument only.
  const noun = `${n.replace(/_/g, ' ')}${/(?:^|_)(?:format|type|kind)$/.test(n) ? '|file|document|archive' : ''}`;
  const m = new RegExp(
    String.raw`\b(?:as|in|into)\s+(?:an?\s+|the\s+)?([a-z][a-z0-9-]*)\s+(?:${noun})s?\b`,
    'i',
  ).exec(text);
  const w = m?.[1]?.toLowerCase();
  return w === undefined || NOT_A_VALUE.has(w) || FILLER.has(w) ? undefined : m![0];
}
