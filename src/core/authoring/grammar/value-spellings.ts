/**
 * A value the events carry, as people type it, read as the value before the rest of the grammar
 * (after the texts the request quotes or says to send, whose words are never changed):
 *
 * - with spaces for its dashes ("payments api" for `payments-api`, a value of a tool's enum too);
 * - a grade (a severity, a priority) said as becoming it ("when checkout goes critical" is "is
 *   critical"; "goes down" is left alone);
 * - a grade (a severity, a priority) said as a plural noun for the events that carry it
 *   ("criticals on auth:", "ignore warnings" are critical alerts, warning alerts), listed under
 *   Assumed, never after words that leave them out ("anything but warnings", "no urgents");
 * - typed with a slip ("critcal alerts", "if it's damagd"), listed under Assumed: only a word no
 *   reading knows (not the catalog's, not a word of its own: a filler, an action, an event's verb)
 *   one slip from exactly one value and with its first letter, said where a value is said (before
 *   the events' noun, after "is", "are", "it's"), so a real word ("spending" beside a value
 *   "pending") is never changed.
 *
 * Pure but for the Assumed lines.
 */
import { EVENT_VERB_GROUPS, FILLER, groupOf, isActionVerb, lemmas } from '../request-words.ts';
import { oneSlipApart } from './one-slip-apart.ts';
import { knownWords, type RequestContext } from './request-context.ts';
import { isEventWord, splitType } from './trigger-words.ts';

/** Words after which a value is said: "if it's critcal", "when the status is pendng". */
const VALUE_LEADS = new Set(['is', 'are', "it's", 'its', "they're", 'theyre', 'was', 'were', 'as', 'marked']);
/** Fields whose values are grades ("premium" of a tier, "owner" of a level are names: left alone). */
const GRADE = /severity|priority|urgency/;
/** Words that leave the events after them out ("anything but warnings", "no urgents"). */
const EXCLUDING =
  /\b(?:but|no|not|except|excluding|without|never|unless|other than|besides|apart from|aren'?t|isn'?t)\s+(?:[a-z']+\s+){0,2}$/;
/** Verbs of becoming, said for "is" before a value: "goes critical", "turned urgent". */
const BECOMES =
  /\b(?:goes|go|going|went|turns|turn|turned|becomes|become|became|gets|got|hits|hit)\s+(?=([a-z][a-z0-9_-]*)\b)/g;

/** The request with the events' values read as the file's comment says (`lower` and `raw` alike). */
export function readValueSpellings(
  lower: string,
  raw: string,
  ctx: RequestContext,
): { lower: string; raw: string } {
  // Each value the samples show, with the noun of the one event type that carries it (or '').
  const nounOf = new Map<string, string>();
  // The values of a grade (a severity, a priority, an urgency): said as nouns ("criticals"); an
  // item's ("kayaks & paddles") are read as they are by the headings.
  const graded = new Set<string>();
  for (const e of ctx.events ?? [])
    for (const [field, vs] of Object.entries(e.values ?? {}))
      for (const v of vs) {
        const noun = splitType(e.type)[0].split(/[_.-]/).at(-1) ?? '';
        nounOf.set(v, nounOf.has(v) && nounOf.get(v) !== noun ? '' : noun);
        if (GRADE.test(field)) graded.add(v);
      }
  if (nounOf.size === 0) return { lower, raw };
  let l = lower;
  let r = raw;
  const replace = (at: number, length: number, by: string) => {
    l = l.slice(0, at) + by + l.slice(at + length);
    r = r.slice(0, at) + by + r.slice(at + length);
  };
  // "payments api": the same length as the value, so nothing else moves (a value of the samples
  // or of a tool's enum).
  const enums = ctx.tools.flatMap((t) =>
    Object.values((t.args.properties ?? {}) as Record<string, { enum?: unknown[] }>).flatMap((p) =>
      (p.enum ?? []).filter((v): v is string => typeof v === 'string'),
    ),
  );
  for (const v of new Set([...nounOf.keys(), ...enums])) {
    if (!v.includes('-')) continue;
    const spaced = new RegExp(String.raw`(?<![a-z0-9"'_-])${v.replace(/[-_]/g, ' ')}(?![a-z0-9"'_-])`, 'g');
    for (const m of [...l.matchAll(spaced)]) replace(m.index, v.length, v);
  }
  // From the end, so a reading that changes the length leaves earlier positions alone.
  const known = knownWords(ctx);
  for (const m of [...l.matchAll(/(?<![a-z0-9"'_-])[a-z]{5,}(?![a-z0-9"'_-])/g)].reverse()) {
    const w = m[0];
    const next = /^\s+([a-z]+)/.exec(l.slice(m.index + w.length))?.[1] ?? '';
    const before = /([a-z']+)\s+$/.exec(l.slice(0, m.index))?.[1] ?? '';
    // "criticals", "warnings": the value's events ("critical alerts"), where no noun follows.
    const single = w.endsWith('s') ? w.slice(0, -1) : '';
    const noun = nounOf.get(single);
    const excluded = EXCLUDING.test(l.slice(0, m.index));
    if (
      noun &&
      graded.has(single) &&
      !excluded &&
      !nounOf.has(w) &&
      !isActionVerb(w) &&
      !isEventWord(next, ctx)
    ) {
      replace(m.index, w.length, `${single} ${noun}s`);
      ctx.assumptions.push(`"${w}" is read as ${single} ${noun}s.`);
      continue;
    }
    if (nounOf.has(w) || known.has(w) || lemmas(w).some((x) => known.has(x) || nounOf.has(x))) continue;
    if (FILLER.has(w) || isActionVerb(w) || groupOf(EVENT_VERB_GROUPS, w)) continue;
    if (!isEventWord(next, ctx) && !VALUE_LEADS.has(before)) continue;
    // (A slip keeps the first letter: "spending" is no "pending", "argent" no "urgent".)
    const near = [...nounOf.keys()].filter(
      (v) => /^[a-z]{6,}$/.test(v) && v[0] === w[0] && oneSlipApart(w, v),
    );
    if (near.length !== 1) continue;
    replace(m.index, w.length, near[0]!);
    ctx.assumptions.push(`"${w}" is read as "${near[0]}", a value the events carry.`);
  }
  // "goes critical": "is critical", for a value the events carry.
  for (const m of [...l.matchAll(BECOMES)].reverse())
    if (graded.has(m[1]!)) replace(m.index, m[0].length, 'is ');
  return { lower: l, raw: r };
}
