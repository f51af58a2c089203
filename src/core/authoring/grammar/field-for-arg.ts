/**
 * The trigger event's field an argument reads when the request names none and no field has the
 * argument's name (fill-args.ts, its last rules before a question; each reading Assumed there):
 *
 * - an enum argument: the event's one field whose sample values (two or more) are all its own (a
 *   removal's `reason` from a report's `category`);
 * - a required text that says what happened (an incident's `title`, a page's `message`), when the
 *   request gives no text: the event's one field that describes the event itself (an alert's
 *   `summary`). Never a text written to a person (`body`, `note`), never one with a form (a
 *   pattern), never a field its author wrote (a ticket's `title`, a response's `comment`).
 *
 * And, first of the money rules, the money field the action's object names ("return the deposit":
 * deposit_usd), when the event carries several (`moneyFieldNamed`).
 */
import type { EventShape } from '../compiled-request.ts';
import { lemmas } from '../request-words.ts';
import type { ArgSchema } from './request-context.ts';

/** The event's one field whose sample values (two or more) all belong to `values`; else undefined. */
export function fieldOfEnum(values: readonly unknown[], shape: EventShape | undefined): string | undefined {
  const fits = Object.entries(shape?.values ?? {}).filter(
    ([f, vs]) => shape!.payload.includes(f) && vs.length >= 2 && vs.every((v) => values.includes(v)),
  );
  return fits.length === 1 ? fits[0]![0] : undefined;
}

/** Arguments that name what happened: a title, a headline, a summary, a page's message. */
const SAYS_WHAT_HAPPENED = new Set(['title', 'headline', 'summary', 'description', 'message']);
/** The field in which the sending system describes the event (a ticket's or post's `title` is its author's). */
const DESCRIBES_EVENT = 'summary';

/** The event's one field describing it, for text argument `n`; else undefined. */
export function describingField(n: string, s: ArgSchema, shape: EventShape | undefined): string | undefined {
  if (!SAYS_WHAT_HAPPENED.has(n) || s.type !== 'string' || Array.isArray(s.enum)) return undefined;
  if (typeof s.pattern === 'string') return undefined;
  return shape?.payload.includes(DESCRIBES_EVENT) ? DESCRIBES_EVENT : undefined;
}

/** Words that compute an amount from another: none of them is the field itself. */
const COMPUTED =
  /\b(?:less|minus|plus|after|excluding|except|deduct(?:ing|ed)?|half|part|portion|some|left|remaining|remainder|rest|balance|difference|percent|more than|up to|than|what(?:'s|s| has| have| is| was)?)\b|%/;

/**
 * "return the deposit (in full)", "give them their deposit back": the one money field of the event
 * (`<words>_usd`) whose words the action's object says, before any preposition (deposit_usd of
 * deposit_usd and arrears_usd; "a laptop out of their equipment budget" is not the budget's price).
 */
export function moneyFieldNamed(clause: string, payload: readonly string[]): string | undefined {
  // ("the deposit less damage", "what's left of the deposit", "half the deposit": an amount
  // computed from it, which no template does: left to the question.)
  if (COMPUTED.test(clause)) return undefined;
  const object = clause
    .replace(/"q[0-9]+"/g, ' ')
    .split(
      /\b(?:out|from|of|with|against|for|to|on|in|within|under|over|by|at|if|when|unless|but|and|then)\b|[,;.:]/,
    )[0]!;
  const said = new Set((object.match(/[a-z]+/g) ?? []).flatMap((w) => lemmas(w)));
  const named = payload.filter(
    (p) =>
      /^[a-z]+(?:_[a-z]+)*_usd$/.test(p) &&
      p
        .replace(/_usd$/, '')
        .split('_')
        .every((w) => lemmas(w).some((l) => said.has(l))),
  );
  return named.length === 1 ? named[0] : undefined;
}
