/**
 * Whether a trigger's clause says a verb of its own that does not fit the event its noun names
 * ("when a ticket is escalated" of the only ticket event, ticket.resolved): then that event is no
 * assumption to make but a question (read-trigger.ts).
 */
import type { EventShape } from '../compiled-request.ts';
import { lemmas } from '../request-words.ts';
import { namesEventVerb } from './event-verb-forms.ts';
import { listedEventVerbGroup, splitType } from './trigger-words.ts';

/**
 * A verb the trigger's clause says of its noun that is not `event`'s own: a listed event verb or an
 * arrival whose group the event's verb is not in ("comes in", "arrives" of ticket.resolved), or a
 * participle after "is", "gets", "was" ... ("is escalated"). None when a word of the clause names
 * the event's verb ("closed out as resolved"), or the clause says no verb ("sev1 alerts").
 */
export function verbOfItsOwn(words: readonly string[], event: EventShape): string | undefined {
  if (words.some((w) => namesEventVerb(w, event))) return undefined;
  const verb = splitType(event.type)[1];
  const listed = listedEventVerbGroup(verb);
  // An arrival fits a request ("a refund comes in": refund.requested), or an event whose verb no
  // group lists ("a new hire arrives": employee.onboarded).
  const arrival = listedEventVerbGroup('new');
  const fits = (g: readonly string[]) =>
    g.includes(verb) ||
    lemmas(verb).some((v) => g.includes(v)) ||
    closedAsResolved(g, verb) ||
    (g === arrival && (listed === undefined || listed.includes('requested')));
  return words.find((w, i) => {
    if (i === 0 && w !== 'new') return false;
    const g = listedEventVerbGroup(w);
    // A listed form in -s that ends the clause is a noun ("expense reports"), not "comes in".
    if (g && !(i === words.length - 1 && /[^s]s$/.test(w))) return !fits(g);
    // "is escalated", "got refunded": a participle no listed group holds, said as the event.
    return (
      !g && /^(?:is|are|was|were|gets?|got|been|becomes?)$/.test(words[i - 1]!) && /[a-z]{3,}ed$/.test(w)
    );
  });
}

/** "closed" said of a `resolved` event, or "resolved" of a `closed` one: a ticket closed out as resolved. */
function closedAsResolved(said: readonly string[], verb: string): boolean {
  const ends = ['closed', 'resolved'];
  return ends.includes(verb) && ends.some((v) => said.includes(v));
}
