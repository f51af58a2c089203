/**
 * A value the events carry, typed with a slip ("critcal alerts", "if it's damagd"): read as the
 * value, and listed under Assumed. Only a word no reading knows (not the catalog's, not a word of
 * its own: a filler, an action, an event's verb) that is one slip away from exactly one value the
 * sample events show, said where a value is said (before the events' noun, after "is", "are",
 * "it's"), so a real word ("spending" beside a value "pending") is never changed. Read before everything but the texts the request quotes or says
 * to send: words inside a text are never corrected.
 *
 * Pure but for the Assumed line.
 */
import { EVENT_VERB_GROUPS, FILLER, groupOf, isActionVerb, lemmas } from '../request-words.ts';
import { oneSlipApart } from './one-slip-apart.ts';
import { knownWords, type RequestContext } from './request-context.ts';
import { isEventWord } from './trigger-words.ts';

/** Words after which a value is said: "if it's critcal", "when the status is pendng". */
const VALUE_LEADS = new Set(['is', 'are', "it's", 'its', "they're", 'theyre', 'was', 'were', 'as', 'marked']);

/** The request with each slip of a sample value read as the value (`lower` and `raw` alike). */
export function readValueTypos(
  lower: string,
  raw: string,
  ctx: RequestContext,
): { lower: string; raw: string } {
  const values = new Set(
    (ctx.events ?? []).flatMap((e) =>
      Object.values(e.values ?? {}).flatMap((vs) => vs.filter((v) => /^[a-z]{6,}$/.test(v))),
    ),
  );
  if (values.size === 0) return { lower, raw };
  const known = knownWords(ctx);
  let l = lower;
  let r = raw;
  // From the end, so a correction that changes the length leaves earlier positions alone.
  const words = [...lower.matchAll(/(?<![a-z0-9"'_-])[a-z]{5,}(?![a-z0-9"'_-])/g)].reverse();
  for (const m of words) {
    const w = m[0];
    if (values.has(w) || known.has(w) || lemmas(w).some((x) => known.has(x) || values.has(x))) continue;
    if (FILLER.has(w) || isActionVerb(w) || groupOf(EVENT_VERB_GROUPS, w)) continue;
    // Where a value is said: before the events' noun ("critcal alerts"), or after "is", "are".
    const next = /^\s+([a-z]+)/.exec(lower.slice(m.index + w.length))?.[1] ?? '';
    const before = /([a-z']+)\s+$/.exec(lower.slice(0, m.index))?.[1] ?? '';
    if (!isEventWord(next, ctx) && !VALUE_LEADS.has(before)) continue;
    const near = [...values].filter((v) => oneSlipApart(w, v));
    if (near.length !== 1) continue;
    const v = near[0]!;
    const at = m.index;
    l = l.slice(0, at) + v + l.slice(at + w.length);
    r = r.slice(0, at) + v + r.slice(at + w.length);
    ctx.assumptions.push(`"${w}" is read as "${v}", a value the events carry.`);
  }
  return { lower: l, raw: r };
}
