/**
 * A trigger said after the action with "if" ("freeze the seller if a chargeback comes in"), found
 * for the trigger reader (read-trigger.ts), which reads the clause as it reads "when ...". Pure.
 */
import { lemmas } from '../request-words.ts';
import type { RequestContext } from './request-context.ts';
import { clauseWords, eventsByNounAndVerb, eventVerbGroup, splitType } from './trigger-words.ts';

/** "if a chargeback comes in", "if a dispute was opened": an indefinite noun and an event verb alone. */
const IF_ARRIVED =
  /\bif (?:a|an|any) (?:new )?([a-z]+(?: [a-z]+)?) (comes? in|arrives?|lands|shows up|(?:(?:is|are|gets|get|was|were|has been|has) )?[a-z]+ed)(?=\s*(?:$|[.,;!?]))/g;
/** Words that forbid the action said before such a clause ("don't send the payout if ..."). */
const FORBIDS = /\b(?:don'?t|dont|do not|never|not|no|won'?t|shouldn'?t|stop)\b/;

/**
 * The trigger said after the action with "if" ("freeze the seller if a chargeback comes in"): a
 * clause of an indefinite noun and an event verb alone, to the sentence's end or a comma, whose noun
 * and verb name exactly one event of the catalog, after the request's one action ("send payouts up
 * to $500, but freeze the seller if a chargeback comes in" would pay on chargebacks) in a request
 * that forbids nothing. Anything more in the clause ("if a payout is requested by a flagged
 * seller"), more before or after it, or a forbidden action is left to the other readers, or asked
 * about.
 */
export function triggerAfterAction(text: string, ctx: RequestContext): RegExpExecArray | null {
  for (const m of text.matchAll(IF_ARRIVED)) {
    // The action before it is the request's only one: nothing else said before it (another clause,
    // sentence or action would run on this event too), and nothing forbidden anywhere.
    const before = text.slice(0, m.index);
    if (/[,.;:!?(]|\s-\s|\b(?:and|but|or|then|also|plus)\b/.test(before.trim())) continue;
    if (FORBIDS.test(text)) continue;
    // Nothing after it ("..., after finance approval", "..., but ask finance first if ...",
    // "..., unless it's a home claim" would be read against this event, or out of order).
    if (/[a-z0-9"]/.test(text.slice(m.index + m[0].length))) continue;
    // ("if an access request expired": a noun that is an event verb too is left to a question.)
    if (m[1]!.split(' ').some((w) => eventVerbGroup(w) !== undefined)) continue;
    // (The verb's words alone: "an access request expired" is access.expired, not requested.)
    const words = clauseWords(m[2]!);
    const group = words.map((w) => eventVerbGroup(w)).find((g) => g !== undefined);
    const nouns = new Set(m[1]!.split(' ').flatMap((w) => lemmas(w)));
    const fits = eventsByNounAndVerb(ctx.events ?? [], nouns, words, group);
    // ("if a trial has ended" is no trial.ending: an event named in -ing is said in -ing.)
    if (fits.length === 1 && (!/ing$/.test(splitType(fits[0]!.type)[1]) || /ing\b/.test(m[2]!)))
      return m as RegExpExecArray;
  }
  return null;
}
