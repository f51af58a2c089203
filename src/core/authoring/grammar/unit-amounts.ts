/**
 * An amount said per unit or against another amount, in a draft that moves money: "refund $20 per
 * night", "credit $10/seat", "$40 to each guest", "return $200 less than the deposit". A template
 * does no arithmetic, so the draft moved the number alone, once: $20 for a stay of four nights,
 * $200 where the words meant the deposit less $200. Asked, never drafted. "$200 a run", "per
 * refund" (the trigger event's own noun, or what the money step is said of, but never a party)
 * bound a run: no question. Pure.
 */
import { lemmas, wordsOf } from '../request-words.ts';
import { isPartyWord } from './party-words.ts';
import type { DraftStep, RequestContext } from './request-context.ts';

const AMOUNT = String.raw`(?:\$\s?[0-9][0-9,]*(?:\.[0-9]+)?k?|\b[0-9][0-9,]*(?:\.[0-9]+)?k?\s?(?:dollars|bucks|usd|quid)\b)`;
/** "$20 per night", "$10/seat", "$40 a night", "$5 for each seat", "$40 to each guest", "$10 each". */
const PER_UNIT = new RegExp(
  String.raw`${AMOUNT}\s*(?:/\s*|\s+(?:per|a|an|each|every|for each|for every|to each|to every)\s+)([a-z]+)((?:\s+[a-z]+){0,2})|${AMOUNT}\s+(each)\b`,
  'g',
);
/** "$50 less than the deposit", "$20 under their ask", "$10 off what they paid". */
const AGAINST = new RegExp(
  String.raw`${AMOUNT}\s+(?:less than|more than|short of|under|below|above|over|off)\s+(?:the|their|his|her|its|what)\b`,
  'g',
);
/** Units a spend cap is said per: a run. */
const PER_RUN = new Set([
  'run',
  'time',
  'go',
  'request',
  'event',
  'call',
  'transaction',
  'case',
  'one',
  'pop',
]);

/** `lower`: the request as normalised, its texts to send quoted (`"q<n>"`). */
export function askUnitAmounts(
  lower: string,
  steps: readonly DraftStep[],
  event: string | undefined,
  ctx: RequestContext,
): void {
  const money = steps.filter((s) => s.tool.cost?.fromArg !== undefined);
  if (money.length === 0) return;
  const text = lower.replace(/"q[0-9]+"/g, ' ');
  // The run's own nouns: the event's, and what each money step is said of (its arguments' names).
  const own = wordsOf(
    [event ?? '', ...money.flatMap((s) => [s.tool.name, ...Object.keys(s.step.args)])].join(' '),
  );
  const events = wordsOf(event ?? '');
  for (const m of text.matchAll(PER_UNIT)) {
    const unit = (m[1] ?? m[3])!;
    // "$25 for every meal expense": the unit's words run on to the event's noun, one event a run.
    // (A party is never the run's: "$40 to each guest" is one refund a guest.)
    const ofRun = (w: string) =>
      !isPartyWord(w, ctx) && (PER_RUN.has(w) || lemmas(w).some((l) => own.has(l) || PER_RUN.has(l)));
    const runsOn = (m[2] ?? '').split(/\s+/).some((w) => w !== '' && lemmas(w).some((l) => events.has(l)));
    if (unit !== 'each' && (ofRun(unit) || runsOn)) continue;
    ctx.questions.push({
      about: 'steps',
      question: `"${m[0].slice(0, m[0].length - (m[2]?.length ?? 0)).trim()}" says an amount for each ${unit === 'each' ? 'one' : unit}, but a draft moves a fixed amount once: no template multiplies. How much should one run move?`,
    });
    return;
  }
  for (const m of text.matchAll(AGAINST)) {
    ctx.questions.push({
      about: 'steps',
      question: `"${m[0].trim()} ..." says an amount against another, but a draft moves a fixed amount or a field as it is: no template subtracts. How much should one run move?`,
    });
    return;
  }
}
