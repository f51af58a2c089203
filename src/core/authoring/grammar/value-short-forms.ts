/**
 * A value a catalog spells out, said short ("misinfo" for misinformation, "harass" for harassment):
 * a word of four letters or more that begins exactly one of the values in question and stops at
 * least three letters short of it. Never a word of the catalog's own (a tool's, an event's: "open"
 * is no short "opened") and never an inflection of the value ("refund" is the verb of "refunded",
 * read by lemmas already). The reader that takes it lists it under "Assumed". Pure.
 */
import { lemmas } from '../request-words.ts';

/** The one value of `values` that `word` is a short form of; undefined: none, or several. */
export function shortFormOf(
  word: string,
  values: readonly string[],
  known: ReadonlySet<string>,
): string | undefined {
  const w = word.toLowerCase();
  if (!/^[a-z]{4,}$/.test(w) || known.has(w)) return undefined;
  const hits = [
    ...new Set(
      values.filter((v) => {
        const l = v.toLowerCase();
        return l.startsWith(w) && l.length >= w.length + 3 && !lemmas(l).includes(w);
      }),
    ),
  ];
  return hits.length === 1 ? hits[0] : undefined;
}
