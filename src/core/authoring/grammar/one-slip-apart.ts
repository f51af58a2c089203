/** Typos: two words one slip apart, and a word as the catalog or the event verbs spell it. Pure but for `spelledAs`'s Assumed line. */
import { EVENT_VERB_GROUPS, groupOf, lemmas } from '../request-words.ts';
import { knownWords, type RequestContext } from './request-context.ts';

/** Two words one slip apart (a letter missing, extra, changed, or two swapped), both of 5+ letters. */
export function oneSlipApart(a: string, b: string): boolean {
  if (a === b || a.length < 5 || b.length < 5 || Math.abs(a.length - b.length) > 1) return false;
  if (a.length === b.length) {
    const diff = [...a].map((ch, i) => (ch === b[i] ? -1 : i)).filter((i) => i >= 0);
    if (diff.length === 1) return true;
    return (
      diff.length === 2 &&
      diff[1] === diff[0]! + 1 &&
      a[diff[0]!] === b[diff[1]!] &&
      a[diff[1]!] === b[diff[0]!]
    );
  }
  const [s, l] = a.length < b.length ? [a, b] : [b, a];
  for (let i = 0; i < l.length; i++) if (l.slice(0, i) + l.slice(i + 1) === s) return true;
  return false;
}

/** A word as the catalog or the event verbs spell it, when it is one slip away from exactly one. */
export function spelledAs(w: string, ctx: RequestContext): string {
  const known = knownWords(ctx);
  if (known.has(w) || lemmas(w).some((l) => known.has(l)) || groupOf(EVENT_VERB_GROUPS, w)) return w;
  const near = new Set(
    [...known, ...EVENT_VERB_GROUPS.flat()].filter((k) => /^[a-z]+$/.test(k) && oneSlipApart(w, k)),
  );
  if (near.size !== 1) return w;
  const fixed = [...near][0]!;
  ctx.assumptions.push(`"${w}" is read as "${fixed}".`);
  return fixed;
}
