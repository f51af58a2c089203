/**
 * The coverage part of the grammar: in every draft, every word of the request is accounted for —
 * read as the trigger, a condition, a step, its arguments (a value taken from the words: "tag it
 * done"), a cap or an assumption, or one of the grammar's own words ("when", "under", "then",
 * "please"). A word none of them reads ("knock the tip off first", "on the first of every month",
 * "email the vendor a remittance advice") is text the draft would drop: a question, never dropped,
 * for a draft that spends money could otherwise pay more, more often or with less than the person
 * asked, and one that grants, deletes or removes could do it to more than the person asked ("viewer
 * requests from contractors get granted" would grant everyone's). A draft that moves or destroys nothing is held to it too:
 * "hide posts about crypto" must not hide every post.
 *
 * A new reading that consumes a phrase makes its words read here by the catalog's vocabulary or by
 * `GRAMMAR_WORDS`; never add a word there that names an action, a time, a party or an amount's part.
 */
import type { EventShape } from '../compiled-request.ts';
import {
  ACTION_GROUPS,
  EVENT_VERB_GROUPS,
  FILLER,
  GENERIC_VERBS,
  lemmas,
  UNITS,
  wordsOf,
} from '../request-words.ts';
import { fitsPattern } from './id-by-pattern.ts';
import { oneSlipApart } from './one-slip-apart.ts';
import { MESSAGE_VERBS } from './read-message-text.ts';
import { ROUTE_WORDS, TIME_WORDS } from './read-routes.ts';
import { catalogWords, type DraftStep, knownWords, listOr, type RequestContext } from './request-context.ts';
import { toolWords } from './tool-words.ts';

/** The readers' own words: lead-ins, bounds, order, negation, politeness and money units. */
export const GRAMMAR_WORDS = new Set(
  `when whenever if once each every any all new incoming as soon after before then first finally next also
  and or but so plus only just please pls thanks thx tho though though ok okay also too always
  under below less than up to at most max maximum cap capped limit budget within no not never dont don't do does
  more over above exceed exceeding beyond greater bigger larger least
  dollar dollars buck bucks usd grand k hundred thousand thousands couple few
  one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen
  eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety
  run per time go ahead can should must will want need needs let automatically auto straight away right
  someone somebody anyone anybody everyone everything people person customer customers user users we us our i me my you your
  comes come in arrives arrive gets get got is are was be been has have had being with without for from on of by against
  at into about that this these those there here what which who whose whatever whoever whichever wherever
  theyre anything something
  approve approval approved ask asking permission sign off say said yet ever know let wait waiting
  staff employee employees team member members forget fail hesitate bother actually really make sure
  regardless anyway anyways teh were`.split(/\s+/),
);

/** Past participles the lemmas do not undo ("posts get hidden"), for this check alone. */
const PARTICIPLES = new Map(
  Object.entries({
    hidden: 'hide',
    written: 'write',
    given: 'give',
    taken: 'take',
    chosen: 'choose',
    frozen: 'freeze',
    paid: 'pay',
    sent: 'send',
    told: 'tell',
    held: 'hold',
    made: 'make',
    done: 'do',
    kept: 'keep',
    sold: 'sell',
    bought: 'buy',
    broken: 'break',
  }),
);

/**
 * A number as written, as an argument holds it: "2,500" 2500, "12.50" 12.5; anything else
 * ("5.000", "1.000,00": a thousands mark of another country) as written, so no argument holds it.
 */
const asNumber = (n: string) =>
  /^[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]{1,2})?$|^[0-9]+(?:\.[0-9]{1,2})?$/.test(n)
    ? String(Number(n.replace(/,/g, '')))
    : n;

/**
 * The words of the tools `steps` call or the request bans, and of the trigger event: its type, the
 * fields the draft reads ("with photos" is no word of a draft that tests no has_photos), and what
 * its subject is (an argument whose pattern its sample subjects fit: "T-2001" is a `ticket_id`).
 */
function draftWords(
  steps: readonly DraftStep[],
  shape: EventShape | undefined,
  drafted: string,
  ctx: RequestContext,
): Set<string> {
  const subjectArgs = ctx.tools.flatMap((t) =>
    Object.entries((t.args.properties ?? {}) as Record<string, { pattern?: unknown }>)
      .filter(([, p]) => p.pattern !== undefined && shape?.subjects?.some((v) => fitsPattern(p.pattern, v)))
      .map(([name]) => name),
  );
  return wordsOf(
    [
      ...steps.map((s) => `${s.tool.name} ${s.tool.description}`),
      ...ctx.tools.filter((t) => ctx.banned.includes(t.name)).map((t) => `${t.name} ${t.description}`),
      shape?.type ?? '',
      ...(shape?.payload ?? []).filter((f) => readsField(drafted, f)),
      ...subjectArgs,
    ].join(' '),
  );
}

/** Whether the drafted text (its tests and steps, as text) reads the event's `field`. */
export const readsField = (drafted: string, field: string) =>
  new RegExp(String.raw`\.${field}\b`).test(drafted);

/** Questions for the words of `lower` no reading accounts for. */
export function checkCoverage(
  lower: string,
  steps: readonly DraftStep[],
  ctx: RequestContext,
  drafted: string,
  event?: string,
): void {
  const read = (f: string) => readsField(drafted, f);
  // "damaged orders that came with photos": a word of the trigger's clause only a field's name has
  // (has_photos), with that field read nowhere, says a test no reader made: asked, in any draft.
  for (const w of ctx.fieldWords.filter((w) => !read(w.field)))
    ctx.questions.push({
      about: 'triggers.when',
      question: `"${w.word}" in "${w.clause}" names the trigger event's ${w.field}, but I read no test of it, and the draft reads it nowhere. Which test of ${w.field} is meant?`,
    });
  // "extend it for not activated accounts": a field of one word named whole after a negation, left
  // unread and read nowhere in the draft, says which events: asked (even where a description uses it).
  const shape = ctx.events?.find((e) => e.type === event);
  const named = new Set(ctx.fieldWords.map((w) => w.field));
  for (const [, w = ''] of lower
    .replace(/"q[0-9]+"/g, ' ')
    .matchAll(/\b(?:not|non|never|no|without|isn'?t|aren'?t)[\s-]+(?:yet\s+|been\s+)?([a-z]{4,})\b/g)) {
    const field = shape?.payload.find((f) => !f.includes('_') && lemmas(w).includes(f));
    if (field === undefined || read(field) || named.has(field)) continue;
    named.add(field);
    ctx.questions.push({
      about: 'triggers.when',
      question: `"${w}" names the ${shape!.type} event's ${field}, but I read no test of it, and the draft reads it nowhere. Which test of ${field} is meant?`,
    });
  }
  const money = steps.some((s) => s.tool.cost?.fromArg !== undefined);
  const destructive = steps.some((s) => s.tool.destructive);
  // In a draft that moves money or destroys, a catalog word is read only where the draft says it:
  // a word of a tool it calls or of its trigger event ("about a no show charge" names another
  // event and another tool: dropped, it refunded every complaint).
  const known = money || destructive ? draftWords(steps, shape, drafted, ctx) : knownWords(ctx);
  const grouped = new Set([...ACTION_GROUPS.flat(), ...EVENT_VERB_GROUPS.flat(), ...GENERIC_VERBS]);
  // A word the compiler read as another (a misspelling) is in an assumption the read-back lists.
  const assumed = ctx.assumptions.join(' ').toLowerCase();
  // A short value an argument took from the words ("tag it done", "grant admin access") is read;
  // a sentence to send is not (its "gold" must not stand for a "gold customers" said elsewhere), nor
  // a value quoted (the quote is read; "tag enterprise tickets 'enterprise'" says which ones too).
  const quoted = new Set(ctx.quotes.map((q) => q.toLowerCase()));
  const values = new Set(
    steps.flatMap((s) =>
      Object.values(s.step.args).flatMap((v) => {
        const words =
          typeof v === 'string' && !v.includes('{{') && !quoted.has(v.toLowerCase())
            ? v.toLowerCase().split(/[^a-z'-]+/)
            : [];
        return words.filter(Boolean).length <= 2 ? words : [];
      }),
    ),
  );
  // Where a route or a response time was read from the words ("drop it in the tier-1 queue, 24h
  // response target"), the words routes and times are said with are read too.
  const routed = [...ctx.argQuotes.values()].some((q) => q.args.length > 0);
  // Where a step sends words the request gave ("warn the member: ..."), the verb that led them is read.
  const sends = steps.some((s) =>
    Object.values(s.step.args).some(
      (v) => typeof v === 'string' && /\s/.test(v.replace(/\{\{[^}]*\}\}/g, '')),
    ),
  );
  // The name of an argument a step gives ("hide them with reason misinformation") is read.
  const argNames = new Set(steps.flatMap((s) => Object.keys(s.step.args).flatMap((k) => k.split('_'))));
  const isRead = (l: string) =>
    known.has(l) ||
    argNames.has(l) ||
    grouped.has(l) ||
    GRAMMAR_WORDS.has(l) ||
    FILLER.has(l) ||
    (routed && (ROUTE_WORDS.has(l) || TIME_WORDS.has(l))) ||
    (sends && MESSAGE_VERBS.has(l));
  const unread: string[] = [];
  const bare = lower.replace(/"q[0-9]+"/g, ' ');
  // A number no reader took ("flagged 4 times or more" with no count field) is a test or an amount
  // the draft would drop; one a step's argument holds ("$10 store credit") is read.
  const numbers = new Set(
    steps.flatMap((s) =>
      Object.values(s.step.args)
        .filter((v) => typeof v === 'number')
        .map(String),
    ),
  );
  for (const n of bare.match(/(?<![a-z0-9-])[0-9]+(?:[.,][0-9]+)*(?![a-z0-9-])/g) ?? [])
    if (!unread.includes(n) && !numbers.has(asNumber(n))) unread.push(n);
  // So is a count said in words that no reader took ("cancel it on attempt four"); "one" is also a pronoun.
  for (const w of bare.match(/\b[a-z]+\b/g) ?? []) {
    const n = UNITS.indexOf(w);
    if (n >= 2 && n <= 12 && !unread.includes(w) && !numbers.has(String(n))) unread.push(w);
  }
  // An id or a range said in the words ("from E-42", "nps 9-10") is read only where the draft
  // holds it.
  const held = drafted.toLowerCase();
  for (const t of bare.match(/(?<![a-z0-9-])(?:[a-z]{1,4}-?[0-9]+|[0-9]+-[0-9]+)(?![a-z0-9-])/g) ?? [])
    if (!unread.includes(t) && !held.includes(t) && !values.has(t)) unread.push(t);
  // "in the US", "U.S. staff": a country, never the pronoun "us" the grammar reads past.
  // (Read where the draft tests or holds the value: `region == "us"`.)
  for (const [place] of bare.matchAll(/\bthe us\b|(?<![a-z.])u\.s\.(?:a\.)?/g)) {
    const shown = place === 'the us' ? 'the US' : place.toUpperCase();
    if (!/"us"/.test(held) && !values.has('us') && !unread.includes(shown)) unread.push(shown);
  }
  // (So are the words of the trigger's clause read as the catalog's and as no test, in such a draft.)
  const scanned = money || destructive ? [bare, ...ctx.triggerWords.map((t) => t.word)].join(' ') : bare;
  for (const w of scanned.split(/[^a-z'-]+/)) {
    const word = w.replace(/^['-]+|['-]+$/g, '').replace(/'(?:s|ve|re|m|ll|d)$/, '');
    if (word.length < 2 || FILLER.has(word) || GRAMMAR_WORDS.has(word)) continue;
    if (lemmas(word).some(isRead)) continue;
    // "posts get hidden": read where a step does what the verb says ("remove hidden posts" is a
    // test no step makes).
    const base = PARTICIPLES.get(word);
    if (base !== undefined && steps.some((s) => toolWords(s.tool).name.has(base))) continue;
    // "on-call": read when the word joined is, or each of its parts is a word of the catalog or of
    // the steps' arguments ("first-time", "auto-approved" are tests: grammar words do not read them).
    const byCatalog = (p: string) => lemmas(p).some((l) => known.has(l) || argNames.has(l));
    if (word.includes('-') && (isRead(word.replace(/-/g, '')) || word.split('-').every(byCatalog))) continue;
    // "non-payment" for a value non_payment a step holds; "policyholder": two catalog words joined.
    if (word.includes('-') && held.includes(word.replace(/-/g, '_'))) continue;
    if (
      [...known].some(
        (k) =>
          k.length >= 4 &&
          word.startsWith(k) &&
          word.length - k.length >= 4 &&
          byCatalog(word.slice(k.length)),
      )
    )
      continue;
    if (assumed.includes(`"${word}`) || values.has(word)) continue;
    // A small typo of a catalog word ("requets") is that word, as the trigger reader reads it.
    if (word.length >= 5 && [...known].some((k) => k.length >= 5 && oneSlipApart(word, k))) continue;
    if (!unread.includes(word)) unread.push(word);
  }
  const said = unread.map((w) => `"${w}"`).join(', ');
  const what = unread.length === 1 ? 'it' : 'they';
  if (unread.length > 0 && money)
    ctx.questions.push({
      about: 'request',
      question: `The draft moves money, and I could not read ${said} in the request: no trigger, condition, step, argument or cap says it, and nothing may be dropped from a draft that spends money. What should ${what} change?`,
    });
  else if (unread.length > 0 && destructive)
    ctx.questions.push({
      about: 'request',
      question: `The draft calls ${listOr(steps.filter((s) => s.tool.destructive).map((s) => s.tool.name))}, a destructive tool, and I could not read ${said} in the request: no trigger, condition, step or argument says it, and nothing may be dropped from such a draft. What should ${what} change?`,
    });
  else if (unread.length > 0 && ctx.wholeReading.length > 0)
    ctx.questions.push({
      about: 'request',
      question: `I could not read ${said} in the request, and ${ctx.wholeReading.join('; ')}: a word that says which events or what to do would be dropped. What should ${what} change?`,
    });
  else if (unread.length > 0)
    ctx.questions.push({
      about: 'request',
      question: `I could not read ${said} in the request: no trigger, condition, step or argument says it, and a word that says which events or what to do would be dropped. What should ${what} change?`,
    });
}

/**
 * A word of the trigger's clause that only a field's name has ("damaged orders that came with
 * photos", has_photos), kept for `checkCoverage` to ask about if the draft reads that field nowhere.
 */
export function noteFieldWord(word: string, clause: string, shape: EventShape, ctx: RequestContext): void {
  const forms = lemmas(word);
  const field = shape.payload.find((f) => f.split('_').some((p) => forms.includes(p)));
  if (field !== undefined && !forms.some((l) => catalogWords(ctx).has(l)))
    ctx.fieldWords.push({ word, field, clause });
}
