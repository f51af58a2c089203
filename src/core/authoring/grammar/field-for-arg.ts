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
 * deposit_usd), when the event carries several (`namedAmount`).
 */
import type { DraftQuestion, EventShape } from '../compiled-request.ts';
import { EVENT_VERB_GROUPS, groupOf, lemmas } from '../request-words.ts';
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
  /\b(?:less|minus|plus|after|excluding|except|deduct(?:ing|ed)?|half|part|portion|some|left|remaining|remainder|rest|balance|difference|percent|up to|than|what(?:'s|s| has| have| is| was)?)\b|%/;

/** "up to $100", "up to 75": a cap said beside the amount, not an amount computed from it. */
const UP_TO_AMOUNT = /\bup to \$?[0-9][0-9,]*(?:\.[0-9]{1,2})?k?\b/g;
/** "what they asked for", "what the guest is asking": the amount asked, as said. */
const WHAT_ASKED =
  /\bwhat (?:they|he|she|the [a-z]+)(?:'re|'s| are| is)? (?:asked|asking|requested|wanted|want|wants)(?: for)?\b/g;

/**
 * "return the deposit (in full)", "give them their deposit back": the one money field of the event
 * (`<words>_usd`) whose words the action's object says, before any preposition (deposit_usd of
 * deposit_usd and arrears_usd; "a laptop out of their equipment budget" is not the budget's price).
 */
function moneyFieldNamed(
  clause: string,
  payload: readonly string[],
  tool: { readonly name: string; readonly description?: string },
): { readonly field: string; readonly asSaid: boolean; readonly toolNamesIt: boolean } | undefined {
  const object = clause
    .replace(/"q[0-9]+"/g, ' ')
    .split(
      /\b(?:out|from|of|with|against|for|to|on|in|within|under|over|by|at|if|when|unless|but|and|then)\b|[,;.:]/,
    )[0]!;
  const said = new Set((object.match(/[a-z]+/g) ?? []).flatMap((w) => lemmas(w)));
  // ("refund what they asked for": refund_requested_usd; "requested" is said by any word of its
  // group, and is the event's word, never one the tool must say.)
  const asked = groupOf(EVENT_VERB_GROUPS, 'requested')!;
  const saysAll = (field: string, words: Set<string>, tool = false) =>
    field
      .replace(/_usd$/, '')
      .split('_')
      .every((w) =>
        lemmas(w).some(
          (l) => words.has(l) || (asked.includes(l) && (tool || asked.some((a) => words.has(a)))),
        ),
      );
  const named = payload.filter((p) => /^[a-z]+(?:_[a-z]+)*_usd$/.test(p) && saysAll(p, said));
  if (named.length !== 1) return undefined;
  // Usable only as said: never an amount computed from it ("the deposit less damage", "what's left
  // of the deposit"), paid to someone the words name ("the deposit to the landlord"), or one the
  // tool's own words never name ("return the arrears" with return_deposit).
  const own = new Set(
    `${tool.name.replace(/_/g, ' ')} ${tool.description ?? ''}`
      .toLowerCase()
      .match(/[a-z]+/g)
      ?.flatMap((w) => lemmas(w)) ?? [],
  );
  const field = named[0]!;
  return {
    field,
    // ("what they asked for" is the amount asked, said as it is, and "up to $100" a cap: no amount
    // computed from it.)
    asSaid:
      !COMPUTED.test(clause.replace(WHAT_ASKED, ' ').replace(UP_TO_AMOUNT, ' ')) &&
      !/\bto\b/.test(clause.replace(UP_TO_AMOUNT, ' ')),
    toolNamesIt: saysAll(field, own, true),
  };
}

/**
 * What the money field the words name (`moneyFieldNamed`) makes of money argument `n` of `tool`: the field as its value (the
 * assumption said when it is not the argument's own name), a question when it is named but not
 * usable as said, or undefined (the other rules decide).
 */
export function namedAmount(
  clause: string,
  payload: readonly string[],
  tool: { readonly name: string; readonly description?: string },
  n: string,
  event: string | undefined,
): { value?: string; said?: string; question?: DraftQuestion } | undefined {
  const named = moneyFieldNamed(clause, payload, tool);
  if (named === undefined) return undefined;
  const usable = named.asSaid && named.toolNamesIt;
  // (Not usable and the argument's own field: the other rules decide. A field the tool's words never
  // name, said as it is: so do they, unless the argument's own field would move another amount
  // than the words name: "pay the contractor the quote" is no invoice's amount_usd.)
  if (!usable && (named.field === n || (named.asSaid && !payload.includes(n)))) return undefined;
  if (!usable)
    return {
      question: {
        about: `args: ${tool.name}.${n}`,
        question: `The words name the ${event} event's ${named.field}: how much should ${tool.name} move (${n})?`,
      },
    };
  return {
    value: `{{event.payload.${named.field}}}`,
    ...(named.field === n
      ? {}
      : {
          said: `${tool.name}'s ${n} is read as the ${event} event's ${named.field}: the amount the words name.`,
        }),
  };
}

/**
 * The money field the event's verb names, of an event with several (refund.requested:
 * `requested_usd` beside `invoice_total_usd`): the amount asked for. Undefined when none or
 * several are.
 */
export function askedAmount(payload: readonly string[], event: string | undefined): string | undefined {
  const verb = lemmas(event?.split('.')[1] ?? '');
  const money = payload.filter((p) => p.endsWith('_usd'));
  if (money.length < 2) return undefined;
  const hits = money.filter((p) =>
    p
      .replace(/_usd$/, '')
      .split('_')
      .some((w) => lemmas(w).some((l) => verb.includes(l))),
  );
  return hits.length === 1 ? hits[0] : undefined;
}
