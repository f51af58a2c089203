/**
 * The words a trigger clause is read with, apart from the verbs of request-words.ts: who did it
 * ("somebody", "an employee"), that an event arrived ("lands", "comes in"), the prepositions and
 * negations before a word that qualifies the event ("on auth", "except warnings"), and how a word
 * names an event's noun or verb. Data and tiny pure helpers only.
 */
import type { EventShape } from '../compiled-request.ts';
import { EVENT_VERB_GROUPS, groupOf, lemmas } from '../request-words.ts';
import { namesEventVerb } from './event-verb-forms.ts';
import { knownWords, type RequestContext } from './request-context.ts';

/**
 * Words of a trigger clause that say who did it or how it is put, never which event: "when somebody
 * submits", "once a ticket's been marked resolved", "anything that fires".
 */
export const NEUTRAL = new Set(
  `somebody someone anybody anyone everybody everyone anything something everything whatever whoever
  employee employees staff people person customer customers user users client clients they we he she
  marked become becomes became turned gets got get been be being just actually really already that which
  who there only or either one ones stuff things thing yet content material behaviour behavior activity
  they're theyre you're youre it's that's thats`.split(/\s+/),
);

/**
 * A desk's own people, as a word of `NEUTRAL` names them. (Never those it serves: "customer
 * complaints" at a hotel are the guests', who complained, never a class of complaint.)
 */
const STAFF = ['staff', 'employee', 'employees', 'worker', 'workers', 'team'];

/**
 * Whether a word of `NEUTRAL` said right before the event's noun ("staff complaints") sorts the
 * events rather than saying who raised them: a value a field of the event shows, or the desk's
 * own staff where the catalog never names them (no tool or event of a hotel's says staff: "staff
 * complaints" are about its staff, a kind of complaint to read or ask about, never dropped).
 */
export function sortsEvents(word: string, shape: EventShape, ctx: RequestContext): boolean {
  const shown = Object.values(shape.values ?? {}).filter((vs) => vs.some((v) => v.toLowerCase() === word));
  if (shown.length === 1) return true;
  return STAFF.includes(word) && !STAFF.some((p) => knownWords(ctx).has(p));
}

/**
 * Words that stand for the event's noun in a heading ("low priority stuff:", "anything urgent ->",
 * "billing ones:"): the event is the one the rest of the request or the catalog says.
 */
export const STAND_INS = new Set(['stuff', 'things', 'thing', 'ones', 'anything', 'everything', 'something']);

/** Words that turn the qualifier after them around: "every alert except warnings". */
export const NEGATORS = new Set([
  'except',
  'excluding',
  'not',
  'non',
  'but',
  'other',
  'than',
  'apart',
  'unless',
  // "they havent activated yet", "it isnt verified": a negated verb turns the word after it around.
  'isnt',
  "isn't",
  'arent',
  "aren't",
  'havent',
  "haven't",
  'hasnt',
  "hasn't",
  'didnt',
  "didn't",
]);

/** Verbs that say an event arrived ("a refund request lands"): the "new / received" group when no other verb is said. */
const ARRIVAL = new Set(
  'land lands landed landing arrive arrives arrived arriving hit hits shows showed pops popped drops dropped appears appeared come comes coming'.split(
    ' ',
  ),
);

/** Prepositions before a word that qualifies the event ("on auth", "thru chat"). */
export const PREPS = new Set([
  'on',
  'in',
  'for',
  'from',
  'by',
  'via',
  'through',
  'thru',
  'over',
  'with',
  'at',
]);

/** The event-verb group a word names as listed, or as an arrival verb ("comes", "arrives": the group of "new"). */
export function listedEventVerbGroup(w: string): readonly string[] | undefined {
  return groupOf(EVENT_VERB_GROUPS, w) ?? (ARRIVAL.has(w) ? groupOf(EVENT_VERB_GROUPS, 'new') : undefined);
}

/**
 * The event-verb group a word names: as listed, an arrival verb (the group of "new"), or another form
 * of a listed verb ("fires" for fired). Undefined: not an event verb.
 */
export function eventVerbGroup(w: string): readonly string[] | undefined {
  const listed = listedEventVerbGroup(w);
  if (listed) return listed;
  if (!/[a-z]{3,}s$/.test(w) || w.endsWith('ss')) return undefined;
  const forms = lemmas(w).filter((l) => l !== w && l.length >= 3);
  return EVENT_VERB_GROUPS.find((g) =>
    g.some((v) => /ed$/.test(v) && lemmas(v).some((l) => forms.includes(l))),
  );
}

export function isNounOf(w: string, shape: EventShape): boolean {
  const nouns = splitType(shape.type)[0].split(/[_.-]/);
  return lemmas(w).some((l) => nouns.some((n) => lemmas(n).includes(l)));
}

/**
 * The events whose noun is one of `nouns` (lemmas) and whose verb is in `group`, the event-verb
 * group a trigger clause says, or, with none said, a form of one of `words`.
 */
export function eventsByNounAndVerb(
  events: readonly EventShape[],
  nouns: ReadonlySet<string>,
  words: readonly string[],
  group: readonly string[] | undefined,
): EventShape[] {
  return events.filter((e) => {
    const [noun = '', verb = ''] = splitType(e.type);
    const nounOk = noun.split(/[_-]/).some((n) => lemmas(n).some((l) => nouns.has(l)));
    const verbOk = group
      ? group.includes(verb) || lemmas(verb).some((v) => group.includes(v))
      : lemmas(verb).some((v) => words.some((w) => lemmas(w).includes(v)));
    return nounOk && verbOk;
  });
}

/** A word naming some event's noun. */
export function isEventWord(w: string, ctx: RequestContext): boolean {
  return ctx.events?.some((e) => isNounOf(w, e)) ?? false;
}

/**
 * An event type's noun and verb: `refund.requested` -> refund, requested. A verb part that names
 * its own noun first (`invoice.payment_failed`, Stripe's way) gives that noun to the noun part:
 * invoice.payment, failed.
 */
export function splitType(type: string): [string, string] {
  const i = type.lastIndexOf('.');
  if (i < 0) return [type, ''];
  const verb = type.slice(i + 1);
  const j = verb.lastIndexOf('_');
  return j > 0 ? [`${type.slice(0, i)}.${verb.slice(0, j)}`, verb.slice(j + 1)] : [type.slice(0, i), verb];
}

/**
 * An event verb, or the verb of one of the catalog's own event types ("places" for order.placed),
 * said by any form, its doer or a verb of its group ("leavers" for employee.leaving: event-verb-forms.ts).
 */
export function saysHappened(w: string, ctx: RequestContext): boolean {
  if (eventVerbGroup(w) !== undefined) return true;
  return (
    ctx.events?.some((e) => {
      const v = lemmas(splitType(e.type)[1]);
      return (w.length > 3 && lemmas(w).some((l) => l.length > 3 && v.includes(l))) || namesEventVerb(w, e);
    }) ?? false
  );
}

/** Where the first sentence of `s` ends (its end mark's index, or its length). */
export function sentenceEnd(s: string): number {
  const m = /[.;!?](\s|$)/.exec(s);
  return m ? m.index : s.length;
}

/**
 * A noun's singular, as an event type's noun or a value is said ("refunds" -> refund, "policies" ->
 * policy, "batches" -> batch, "addresses" -> address).
 */
export function singular(w: string): string {
  if (w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (/(?:ch|sh|ss|x)es$/.test(w)) return w.slice(0, -2);
  return w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w;
}

/**
 * The words of a trigger clause: "aren't", "isn't", "don't" read as "not"; "they're", "it's", "the
 * customer's" without their contraction or possessive; a quotation one word, its marks kept (so a
 * question shows it as the person wrote it).
 */
export function clauseWords(clause: string): string[] {
  return (
    clause
      .replace(/\b[a-z]+n'?t\b/g, (w) =>
        /^(?:aren|isn|wasn|weren|don|doesn|didn|haven|hasn)'?t$/.test(w) ? 'not' : w,
      )
      .replace(/(?<=[a-z])'(?:re|ve|ll|d|m|s)\b/g, '')
      .match(/"q[0-9]+"|[a-z0-9_-]+/g) ?? []
  );
}
