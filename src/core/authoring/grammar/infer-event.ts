/** Which event a request means when it names none the trigger grammar reads (read-trigger.ts). */
import type { EventShape } from '../compiled-request.ts';
import { EVENT_VERB_GROUPS, FILLER, groupOf, lemmas } from '../request-words.ts';
import { namesEventVerb } from './event-verb-forms.ts';
import { spelledAs } from './one-slip-apart.ts';
import { isPartyWord } from './party-words.ts';
import type { RequestContext } from './request-context.ts';
import { splitType } from './trigger-words.ts';

/** The verb groups (request-words.ts) that say a thing arrived: requested, new / received. */
const ARRIVING = ['requested', 'received'];
/** Verbs of an event type that say only that it happened: an alert fired, an order was placed. */
const ARRIVALS =
  /^(?:fired|triggered|placed|posted|logged|started|scheduled|booked|joined|hired|signed_up|registered|generated|detected|issued)$/;

/**
 * The event a request means when it names none that the trigger grammar reads: the one event of the
 * catalog whose noun the request uses (narrowed by the verbs it uses when several do), or the
 * catalog's only event. Listed under "Assumed" with why; none or several: undefined (a question).
 */
export function inferEvent(text: string, ctx: RequestContext): string | undefined {
  const events = ctx.events;
  if (!events || events.length === 0) return undefined;
  const words = text
    .split(/[^a-z0-9_-]+/)
    .filter((w) => w && !FILLER.has(w))
    .map((w) => spelledAs(w, ctx));
  const said = new Set(words.flatMap((w) => lemmas(w)));
  const nounOf = (e: EventShape) => splitType(e.type)[0].split(/[_.-]/);
  const isSaid = (n: string) => lemmas(n).some((l) => said.has(l));
  let found = events.filter((e) => nounOf(e).some(isSaid));
  // "pay new claims": claim.documents_received's noun is said only in part; claim.filed's in whole.
  const whole = found.filter((e) => nounOf(e).every(isSaid));
  if (whole.length > 0) found = whole;
  // Two subjects ("refund them and close the ticket") say nothing of which one starts it.
  if (new Set(found.map((e) => splitType(e.type)[0])).size > 1) return undefined;
  let why = `the request names no event, and ${found.length === 1 ? 'it is the only one about' : 'it is the one about'} ${found.length ? nounOf(found[0]!).join(' ') : ''}`;
  // Whether `ws` say the event's verb, by any form, a word of its group or a noun of its stem
  // ("lands", "failures" for payment_failed).
  const says = (e: EventShape, ws: readonly string[]) => {
    const verb = splitType(e.type)[1];
    const group = groupOf(EVENT_VERB_GROUPS, verb) ?? [verb];
    const stem = verb.replace(/e?d$/, '');
    return ws.some(
      (w) =>
        lemmas(w).some((l) => group.includes(l) || lemmas(verb).includes(l)) ||
        namesEventVerb(w, e) ||
        (stem.length > 3 && w.startsWith(stem)),
    );
  };
  // "when a guest checks out": a party the catalog names (party-words.ts) is said of most of its
  // events; the one event named for it (guest.no_show) is meant only when its verb is said too.
  const [only] = found;
  const verbSaid = (e: EventShape) =>
    says(e, words) || new RegExp(String.raw`\b${splitType(e.type)[1].replace(/_/g, '[ _-]?')}`).test(text);
  if (
    found.length === 1 &&
    only &&
    !verbSaid(only) &&
    nounOf(only)
      .filter(isSaid)
      .every((n) => isPartyWord(n, ctx))
  )
    return undefined;
  if (found.length > 1) {
    // "Approve invoices under 500": a verb said bare, as a tool for the event's noun is named
    // (approve_invoice), is what the workflow does, not the event that starts it
    // (request_finance_approval names no payout: "request" may still say payout.requested).
    const nouns = new Set(found.flatMap(nounOf));
    const acts = new Set(
      ctx.tools.flatMap((t) => {
        const [first, ...rest] = t.name.split('_');
        return rest.some((r) => nouns.has(r)) ? [first!] : [];
      }),
    );
    // ("... and request finance approval": a tool named in full, request_finance_approval, says no event.)
    const named = new Set<number>();
    for (const t of ctx.tools) {
      const parts = t.name.split('_');
      if (parts.length < 2) continue;
      words.forEach((_, i) => {
        if (parts.every((p, j) => words[i + j] === p)) named.add(i);
      });
    }
    const free = words.filter((_, i) => !named.has(i));
    const verbs = free.filter((w) => !acts.has(w));
    const done = found.filter((e) => says(e, free) && !says(e, verbs));
    // (Said only in a tool's name, "request finance approval for payouts", a verb still says the
    // event when nothing else does.)
    const unacted = words.filter((w) => !acts.has(w));
    const by = found.filter((e) => says(e, verbs));
    found = by.length > 0 ? by : found.filter((e) => says(e, unacted));
    why = `the request names no event; it is the only one whose noun and verb the request uses`;
    // The events of the noun but the one the workflow's own action makes: when one is left, it.
    const left = whole.length > 0 ? whole : events.filter((e) => nounOf(e).some(isSaid));
    const before = left.filter((e) => !done.includes(e));
    if (found.length === 0 && done.length > 0 && before.length === 1) {
      found = before;
      why = `the request names no event; it is the only one about ${nounOf(before[0]!).join(' ')} but ${done.map((e) => e.type).join(' and ')}, which is what the request does (${[...new Set(words.filter((w) => acts.has(w) && done.some((e) => says(e, [w]))))].join(', ')}), not what starts it`;
    }
  }
  // "tag accounts that downgrade", "anyone who cancels": no event's noun, but a relative clause
  // says one event's verb, of someone or some account ("anything that changed" says nothing), with
  // no object of its own ("anyone who requested a refund" is about a refund), and a verb that says
  // more than that something arrived (requested, received, new: every catalog has those).
  if (found.length === 0) {
    const relative = [
      ...text.matchAll(
        /\b([a-z]+) (?:who|that|which)\s+(?:(?:just|has|have|had|get|gets|got|is|are|was|were)\s+)*([a-z]+)\b(?!\s+(?:a|an|the|their|his|her|its|some|any|my|our|to|or|and)\b)/g,
      ),
    ]
      .filter((m) => !/^(?:anything|everything|something|nothing|whatever|stuff)$/.test(m[1]!))
      // ("anyone who changed": a verb any event could say.)
      .filter((m) => !/^(?:changed|changes|change|updated|updates|update|modified|happened)$/.test(m[2]!))
      // ("but not ones that cancelled": the events it leaves out.)
      .filter(
        (m) =>
          !/\b(?:not|except|excluding|but|other than|never)\s+(?:\S+\s+){0,2}$/.test(text.slice(0, m.index)),
      )
      .map((m) => spelledAs(m[2]!, ctx));
    const byVerb = events.filter((e) => {
      const verb = splitType(e.type)[1];
      const arrives =
        ARRIVING.some((v) => groupOf(EVENT_VERB_GROUPS, v)?.includes(verb)) || ARRIVALS.test(verb);
      return !arrives && says(e, relative);
    });
    if (byVerb.length === 1) {
      found = byVerb;
      why = `the request names no event's noun, and "${relative.filter((w) => says(byVerb[0]!, [w])).join('", "')}" says its verb, no other event's`;
    }
  }
  // "reason 'wrong size' -> reply ...": a field of the request's that only one event carries.
  if (found.length === 0) {
    const named = (f: string) => new RegExp(String.raw`\b${f.split('_').join('[ _]')}\b`).test(text);
    const carrying = events.filter((e) => e.payload.some((f) => f.length > 3 && named(f)));
    if (carrying.length === 1) {
      found = carrying;
      why = `the request names its ${carrying[0]!.payload.find(named)} field, and no other event carries one`;
    }
  }
  if (found.length === 0 && events.length === 1) {
    found = [...events];
    why = 'the request names no event, and the catalog knows only this one';
  }
  if (found.length !== 1) return undefined;
  // "tag vip orders" is no "tag damaged orders": an event named for a state its noun is in
  // (order.damaged, package.lost) is assumed only when the request says that state.
  const verb = splitType(found[0]!.type)[1];
  const arrives = ARRIVING.some((v) => groupOf(EVENT_VERB_GROUPS, v)?.includes(verb)) || ARRIVALS.test(verb);
  if (/ed$/.test(verb) && !arrives && !says(found[0]!, words) && events.length > 1) return undefined;
  ctx.assumptions.push(`The workflow starts on ${found[0]!.type}: ${why}.`);
  return found[0]!.type;
}
