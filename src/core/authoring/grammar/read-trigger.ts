/**
 * The trigger part of the grammar: which event starts the workflow. Reads a literal event type
 * ("on refund.requested"), a trigger clause ("when a refund is requested", "each time a new ticket
 * comes in", "if someone asks for a refund") or a noun phrase ("refund requests:", "every invoice
 * received"), and matches its noun and verb (verbs by group, request-words.ts) against the
 * catalog's events. It cuts the clause it read out of the text, so the actions are what is left.
 *
 * No event, two that fit, or a word in the clause the catalog never uses is a question, never a
 * guess. Phrasings of new trigger kinds (schedules, waits) belong here, as another pattern tried
 * before the fallbacks.
 */

import type { EventShape } from '../compiled-request.ts';
import { EVENT_VERB_GROUPS, FILLER, GENERIC_VERBS, groupOf, lemmas } from '../request-words.ts';
import { askedAt, namesTool } from './asked-for.ts';
import { eventByValues } from './event-by-value.ts';
import { eventByVerb, namesEventVerb } from './event-verb-forms.ts';
import { inferEvent } from './infer-event.ts';
import { verbOfItsOwn } from './lone-event-verb.ts';
import { spelledAs } from './one-slip-apart.ts';
import type { Qualifier } from './qualifier.ts';
import { signoffAsTime } from './read-signoff.ts';
import { cutOut, knownWords, listOr, type RequestContext, type RequestText } from './request-context.ts';
import { triggerAfterAction } from './trigger-after-action.ts';
import { heading, isActionWord } from './trigger-heading.ts';
import {
  clauseWords,
  eventsByNounAndVerb,
  eventVerbGroup,
  isNounOf,
  NEGATORS,
  NEUTRAL,
  PREPS,
  STAND_INS,
  saysHappened,
  sentenceEnd,
  singular,
  sortsEvents,
  splitType,
} from './trigger-words.ts';
import { fieldSorting } from './values-by-noun.ts';

const TRIGGER_START =
  /(?<=^|[.;!?]\s+)(?:if)(?= (?:a|an|the|someone|somebody|anyone|any|an?y?one|people|we|they) )|\b(whenever|when|each time|every time|as soon as|once|on every|on each|for every|for each|any time|anytime|if ever|after(?= (?:a|an|each|every|any|the) (?:[a-z]+ (?:is|are|gets|get|has|comes|arrives)\b|[a-z]+(?:'s|s) (?:been )?[a-z]+ed\b)))\b/;

/** A number on its own (no id's part, no money, no percentage): what a reader of bounds takes. */
const UNREAD_NUMBER = /(?<![\w$.,'-])[0-9]+(?:\.[0-9]+)?\+?(?![\w%.,'-]|\s*(?:dollars?|bucks?|usd|k)\b)/g;

/** The trigger event type the request names, and where its clause was. */
export function readTrigger(
  buf: RequestText,
  ctx: RequestContext,
  said?: string,
): { event?: string; qualifiers?: Qualifier[] } {
  // "on refund.requested", "when access.requested fires", or a catalog's type as a heading
  // ("access.requested -> ...", arrows read as colons).
  const typeHeading = /(?:^|[.;!?]\s+)\s*`?([a-z][a-z0-9_-]*\.[a-z][a-z0-9_.-]*[a-z0-9])`?(?=\s*:)/.exec(
    buf.text,
  );
  const literal =
    /\b(?:on|when|whenever|event|after)\s+(?:the\s+)?(?:event\s+)?`?([a-z][a-z0-9_-]*\.[a-z][a-z0-9_.-]*[a-z0-9])`?(?:\s+(?:fires|comes in|arrives|happens|lands|is emitted))?/.exec(
      buf.text,
    ) ?? (typeHeading && ctx.events?.some((e) => e.type === typeHeading[1]) ? typeHeading : null);
  if (literal) {
    cutOut(buf, literal);
    const type = literal[1]!;
    if (ctx.events && !ctx.events.some((e) => e.type === type)) {
      ctx.questions.push({
        about: 'triggers',
        question: `No event ${type} is known. Which event starts this workflow? ${listOr(ctx.events.map((e) => e.type))}?`,
        candidates: ctx.events.map((e) => e.type),
      });
      return {};
    }
    return { event: type };
  }
  const start = TRIGGER_START.exec(buf.text) ?? triggerAfterAction(buf.text, ctx);
  let clause: RegExpExecArray | null = null;
  if (start) {
    const rest = buf.text.slice(start.index);
    const end = /,|\bthen\b|:| - /.exec(rest.slice(start[0].length));
    // Typed without a comma ("... comes in refund it", "... resolved tag it and then close it"):
    // the clause ends where the action starts.
    // (A sentence's end before the comma ends it too: "... except the ones from search; severity ...".)
    const upTo = Math.min(end ? start[0].length + end.index : rest.length, sentenceEnd(rest));
    const len = actionStart(rest.slice(0, upTo), ctx) ?? upTo;
    clause = Object.assign([rest.slice(0, len)], {
      index: start.index,
      input: buf.text,
    }) as unknown as RegExpExecArray;
  } else {
    // "Alerts: ...", "critical alert -> ...", "new ticket opened? ...", "An employee submits an expense report - ..."
    clause = heading(buf.text, ctx);
  }
  if (!start && !clause) {
    // "On refund requests, ...", "For new tickets: ..."
    let m =
      /(?:^|[.;:]\s*|\b(?:on|for|after|with|to|handle|answer|respond to)\s+)((?:a |an |any |all |every |each |incoming )?(?:new )?[a-z]+ (?:requests?|tickets?|invoices?|reports?|submissions?|claims?|alerts?|incidents?)(?: only)?)\b/.exec(
        buf.text,
      );
    const every = m
      ? null
      : // "every month", "each monday" is a schedule, not an event: left for the coverage check to ask about.
        /\b((?:every|each|any|all) (?:new |incoming )?(?!(?:day|week|month|year|quarter|morning|evening|night|hour|minute|weekday|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b)[a-z]+(?: (?:received|submitted|approved|resolved|opened|flagged|requested|filed|created|closed|paid))?)\b/.exec(
          buf.text,
        );
    if (every) clause = every;
    // "pay invoices under 1000", "close tickets ...": a verb of an action before the noun is the
    // action, on the event the noun names (inferred below), never a word qualifying the event.
    const lead = m ? /([a-z]+) [a-z]+(?: only)?$/.exec(m[1]!)?.[1] : undefined;
    if (m && lead !== undefined && isActionWord(lead, ctx)) m = null;
    if (m) {
      const at = m.index + m[0].length - m[1]!.length;
      clause = Object.assign([m[1]!], { index: at, input: buf.text }) as unknown as RegExpExecArray;
    }
  }
  if (!clause) {
    // (What the branch readers took out says the event too: "if the reason is ..., refund it, otherwise reply ...".)
    const inferred = inferEvent(buf.text, ctx) ?? (said !== undefined ? inferEvent(said, ctx) : undefined);
    if (inferred) return { event: inferred };
    askTrigger(ctx, 'The request does not say what starts the workflow.');
    return {};
  }
  const whole = buf.text;
  const words = clauseWords(clause[0]).map((w) => (w.startsWith('"') ? w : spelledAs(w, ctx)));
  cutOut(buf, clause);
  const verbIdx = words.findIndex((w, i) => i > 0 && eventVerbGroup(w) !== undefined);
  const verbGroup = verbIdx >= 0 ? eventVerbGroup(words[verbIdx]!) : undefined;
  const trig = new Set([
    'when',
    'whenever',
    'each',
    'every',
    'time',
    'as',
    'soon',
    'once',
    'on',
    'for',
    'after',
    'with',
  ]);
  const nouns = words.filter(
    (w, i) =>
      i !== verbIdx &&
      !trig.has(w) &&
      // ("in the US": a country, never the pronoun.)
      (!FILLER.has(w) ||
        (w === 'us' &&
          (words[i - 1] === 'the' ||
            /^(?:employees?|staff|customers?|sellers?|vendors?|offices?|users?|accounts?|members?|clients?|based)$/.test(
              words[i + 1] ?? '',
            )))) &&
      !NEUTRAL.has(w) &&
      !NEGATORS.has(w) &&
      !PREPS.has(w) &&
      eventVerbGroup(w) === undefined &&
      !/^(is|are|was|were|been|being|has|had|gets|got|comes|in|new|by|if|s|through|thru|along|now)$/.test(w),
  );
  // "a new ticket": `new` is the event verb when no other is said.
  const group = verbGroup ?? (words.includes('new') ? groupOf(EVENT_VERB_GROUPS, 'new') : undefined);
  const nounLemmas = new Set(nouns.flatMap((n) => lemmas(n)));
  if (!ctx.events) {
    const noun = nouns[nouns.length - 1] ?? nouns[0];
    if (!noun || !group) {
      askTrigger(ctx, `I could not read an event from "${clause[0].trim()}".`);
      return {};
    }
    return { event: `${singular(noun)}.${group[0]}` };
  }
  const found = eventsByNounAndVerb(ctx.events, nounLemmas, words, group);
  const qualifiersOf = (shape: EventShape, all: boolean): Qualifier[] => {
    const nounAt = words.findIndex((w) => isNounOf(w, shape));
    const out: Qualifier[] = [];
    const isField = (w: string | undefined) =>
      w !== undefined && lemmas(w).some((l) => shape.payload.includes(l));
    const verbOf = lemmas(splitType(shape.type)[1]);
    const isVerb = (w: string) =>
      lemmas(w).some((l) => l.length > 3 && verbOf.includes(l)) || namesEventVerb(w, shape);
    words.forEach((w, i) => {
      // "from new sellers": a value before the noun its field sorts (values-by-noun.ts), "new" too.
      const sorting = fieldSorting(w, words[i + 1], shape);
      if (sorting !== undefined) {
        const negated = [words[i - 1], words[i - 2]].some((x) => x !== undefined && NEGATORS.has(x));
        out.push({
          word: w,
          field: sorting,
          modifier: true,
          known: true,
          clause: clause![0].trim(),
          ...(negated ? { negated } : {}),
        });
        return;
      }
      // ("staff complaints": a value of the category, though "staff" says who elsewhere.)
      const sorts = NEUTRAL.has(w) && nounAt === i + 1 && sortsEvents(w, shape, ctx);
      if ((!nouns.includes(w) && !sorts) || isNounOf(w, shape) || isVerb(w)) return;
      // "high priority shipments", "low-severity alerts": the word names the field the one before it
      // is a value of; with none before it ("hi sev complaints"), it is asked (known: false).
      const valued = i > 0 && nouns.includes(words[i - 1]!);
      if (isField(w) && (valued || nounAt === i + 1)) {
        if (!valued) out.push({ word: w, modifier: false, known: false, clause: clause![0].trim() });
        return;
      }
      // "non-critical alerts": the value turned around.
      const non = /^non-([a-z0-9][a-z0-9-]*)$/.exec(w);
      if (non) {
        out.push({ word: non[1]!, negated: true, modifier: true, known: false, clause: clause![0].trim() });
        return;
      }
      const named = /^([a-z0-9]+)-([a-z_]+)$/.exec(w);
      if (named && isField(named[2])) {
        out.push({
          word: named[1]!,
          field: named[2]!,
          modifier: true,
          known: false,
          clause: clause![0].trim(),
        });
        return;
      }
      const field = isField(words[i + 1]) ? words[i + 1] : undefined;
      // "except warnings", "but not search", "other than auth": the qualifier is turned around.
      // ("unless it's a sev3", "except the ones from search": past the pronoun, article, stand-in
      // and preposition too.)
      let back = i - 1;
      while (
        back > 0 &&
        /^(?:a|an|the|it|its|is|are|they|theyre|was|were|ones?|those|that|which|from|by|via)$/.test(
          words[back]!,
        )
      )
        back--;
      // ("but" only just before it, past an article: "every alert but warnings", "any system but
      // the payroll one"; "lapsed but on autopay" is on autopay.)
      // ("but the auto claims only" keeps them.)
      const only = [words[i + 1], words[i + 2]].some((x) => x === 'only' || x === 'just');
      const negated = [words[i - 1], words[i - 2], words[back], words[back - 1]].some(
        (x, at) => x !== undefined && NEGATORS.has(x) && (x !== 'but' || ((at === 0 || at === 2) && !only)),
      );
      // The preposition before it, past an article ("thru the app").
      const before = words[i - 1] !== undefined && /^(?:the|a|an)$/.test(words[i - 1]!) ? i - 2 : i - 1;
      const prep = before >= 0 && PREPS.has(words[before]!) ? words[before] : undefined;
      // Before the event's noun, or before "ones" standing for it ("except furniture ones").
      const modifier = nounAt > i || /^ones?$/.test(words[i + 1] ?? '');
      const known = knownWords(ctx).has(w) || lemmas(w).some((l) => knownWords(ctx).has(l));
      // Past an inferred event, the word just after its noun is the noun's own ("expense claims",
      // "refund reqs"); any other is read, or asked about.
      const headNoun = i > 0 && isNounOf(words[i - 1]!, shape) && prep === undefined && !negated;
      // "the tip line": the next word, when it may be the rest of one value (paired-values.ts).
      const next = words[i + 1];
      const then =
        next !== undefined &&
        nouns.includes(next) &&
        !isNounOf(next, shape) &&
        !isField(next) &&
        !isVerb(next)
          ? next
          : undefined;
      if (all || !headNoun)
        out.push({
          word: w,
          ...(prep ? { prep } : {}),
          ...(then ? { then } : {}),
          ...(field ? { field } : {}),
          ...(negated ? { negated } : {}),
          modifier,
          known,
          clause: clause![0].trim(),
        });
    });
    // A negation that turns no word around ("when a ticket is not resolved") is asked about, never dropped.
    // ("but" turns only the word just after it, read above.)
    const negator = words.find((w) => NEGATORS.has(w) && w !== 'than' && w !== 'but');
    if (negator !== undefined && !out.some((q) => q.negated))
      out.push({ word: negator, modifier: false, known: false, clause: clause![0].trim() });
    // So is a number said of the events that no reader took ("shipments 3 days late"): the words
    // around it may all be the catalog's, but the bound would be dropped.
    for (const m of clause![0].matchAll(UNREAD_NUMBER))
      if (!out.some((q) => q.word === m[0]))
        out.push({ word: m[0], modifier: false, known: false, clause: clause![0].trim() });
    return out;
  };
  if (found.length === 1) return { event: found[0]!.type, qualifiers: qualifiersOf(found[0]!, true) };
  if (found.length > 1) {
    ctx.questions.push({
      about: 'triggers',
      question: `Which event starts this workflow: ${listOr(found.map((e) => e.type))}?`,
      candidates: found.map((e) => e.type),
    });
    return {};
  }
  // ("new hire", "every new starter": "new" is no verb of its own beside the event's.)
  const ownVerb = verbIdx >= 0 && words[verbIdx] !== 'new' ? verbGroup : undefined;
  const byVerb = eventByVerb(words, nounLemmas, ownVerb, ctx.events);
  if (byVerb.length === 1) {
    const said = words.filter((w) => namesEventVerb(w, byVerb[0]!));
    ctx.assumptions.push(
      `The workflow starts on ${byVerb[0]!.type}: "${said.join('", "')}" in "${clause[0].trim()}" names its verb, and no other event's.`,
    );
    return { event: byVerb[0]!.type, qualifiers: qualifiersOf(byVerb[0]!, true) };
  }
  // "chat tickets": of the events its noun names, the one whose fields hold the words said with it.
  // ("low severity stuff": a word standing for the noun, any event.)
  const named = words.some((w) => STAND_INS.has(w))
    ? ctx.events
    : ctx.events.filter((e) =>
        splitType(e.type)[0]
          .split(/[_-]/)
          .some((n) => lemmas(n).some((l) => nounLemmas.has(l))),
      );
  // ("dhl:", "interns:": no event's noun at all; of every event, the one whose fields hold the words.)
  const byValue =
    named.length > 0
      ? eventByValues(named, (e) => qualifiersOf(e, true), ctx)
      : eventByValues(ctx.events, (e) => qualifiersOf(e, true), ctx, false);
  if (byValue) return { event: byValue.type, qualifiers: qualifiersOf(byValue, true) };
  // "sev1 alerts: ...": the trigger's own words name one event's noun, whatever the rest names.
  if (named.length === 1 && !words.some((w) => STAND_INS.has(w))) {
    // "when a ticket is escalated" (or "comes in") with only ticket.resolved: the clause says a
    // verb of its own that is not the event's, so that event is no assumption to make but a question.
    const other = verbOfItsOwn(words, named[0]!);
    if (other !== undefined) {
      askTrigger(
        ctx,
        `"${clause[0].trim()}" says "${other}", and the only event about ${splitType(named[0]!.type)[0]} is ${named[0]!.type}.`,
      );
      return {};
    }
    const verbSaid = words.filter((w) => namesEventVerb(w, named[0]!));
    ctx.assumptions.push(
      `The workflow starts on ${named[0]!.type}: ${verbSaid.length > 0 ? `"${verbSaid.join('", "')}" in "${clause[0].trim()}" names its verb` : `"${clause[0].trim()}" names no event's verb`}, and it is the only one about ${splitType(named[0]!.type)[0]}.`,
    );
    return { event: named[0]!.type, qualifiers: qualifiersOf(named[0]!, false) };
  }
  const inferred = inferEvent(whole, ctx);
  const shape = ctx.events.find((e) => e.type === inferred);
  if (inferred && shape) {
    // "grant it once their manager has approved": a sign-off said as a time is no trigger; its
    // words go back to the text for the step readers, never dropped.
    if (signoffAsTime(clause[0]))
      buf.text =
        buf.text.slice(0, clause.index) + clause[0] + buf.text.slice(clause.index + clause[0].length);
    return { event: inferred, qualifiers: qualifiersOf(shape, false) };
  }
  askTrigger(ctx, `No known event matches "${clause[0].trim()}".`);
  return {};
}

/**
 * Where the action starts in a trigger clause typed without a comma ("when a refund request comes
 * in refund it"): the first word after the event verb that names a catalog tool's action, or is a
 * generic verb ("send"), followed by its object (it, them, a quoted text...). Undefined: none.
 */
function actionStart(clause: string, ctx: RequestContext): number | undefined {
  const words = [...clause.matchAll(/[a-z0-9_'-]+|"q[0-9]+"/g)];
  const names = (w: string) => namesTool(w, ctx);
  const verbAt = words.findIndex((w, i) => i > 0 && saysHappened(w[0], ctx));
  // No event verb ("on a payout request over $2k get finance approval"): only "get" and its like
  // before what a tool asks for starts the action.
  if (verbAt < 0) return askedAt(clause, ctx);
  for (let i = verbAt + 1; i + 1 < words.length; i++) {
    const w = words[i]![0];
    const next = words[i + 1]![0];
    // A catalog verb or a generic one; or, right after the event verb, any word that is not a
    // preposition or filler ("... marked resolved stick a label on it").
    const any = i === verbAt + 1 && /^[a-z]+$/.test(w) && !FILLER.has(w) && !PREPS.has(w) && !NEUTRAL.has(w);
    // ("... over $5k get manager approval": a generic verb whose object names a tool, a word on.)
    const after = words[i + 2]?.[0];
    const generic = GENERIC_VERBS.has(w) || /^(?:get|ask|seek|obtain)$/.test(w);
    // ("... logged post to #maintenance: ...": a channel is what a message goes to.)
    const toChannel = /^(?:in|to|on|into)\s+#/.test(clause.slice(words[i + 1]!.index!));
    const object =
      /^(?:it|them|him|her|the|this|that|these|those|a|an|all|each|every|"q[0-9]+")$/.test(next) ||
      toChannel ||
      (generic && (names(next) || (after !== undefined && names(after))));
    if (
      words[i - 1]![0] !== 'to' &&
      (names(w) || generic || any) &&
      eventVerbGroup(w) === undefined &&
      object
    ) {
      // "... requested don't refund it": the negation before the action is the action's.
      let at = i;
      while (at - 1 > verbAt && /^(?:don'?t|dont|never|not|do|just|please)$/.test(words[at - 1]![0])) at--;
      return words[at]!.index;
    }
  }
  return undefined;
}

function askTrigger(ctx: RequestContext, why: string): void {
  const known = ctx.events?.map((e) => e.type) ?? [];
  ctx.questions.push({
    about: 'triggers',
    question: `${why} Which event starts this workflow?${known.length ? ` ${listOr(known)}?` : ' Say e.g. "when a refund is requested".'}`,
    ...(known.length ? { candidates: known } : {}),
  });
}
