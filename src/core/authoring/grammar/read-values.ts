/**
 * Values said before the event's noun, the way people head a rule: a currency code ("Only USD
 * refund requests", "EUR invoices", "USD-only refunds") or said of it ("if the invoice is USD") is
 * the event's currency, as "in USD" is
 * (read-amounts.ts readCurrency); the code in any case. Cut out of the text, so the trigger reader
 * sees only its noun.
 */
import { readCurrency, saidAgainst } from './read-amounts.ts';
import { cutOut, type RequestContext, type RequestText } from './request-context.ts';
import { isEventWord } from './trigger-words.ts';

const CODE =
  /\b(?<!non[- ]?)(?:only\s+)?(usd|us dollar|eur|euro|gbp|cad|aud|jpy)(?:[- ]only)?\s+(?:only\s+)?(?=([a-z]+)\b)/g;

/** "the invoice is USD", "if the claims are EUR": the code said of the event's noun. */
const SAID_OF = /\b([a-z]+)\s+(?:is|are|was|were)\s+(?:in\s+)?(usd|eur|gbp|cad|aud|jpy)\b/g;

/** The currency code said before an event's noun, or of it, cut out; undefined when none is. */
export function readCurrencyBefore(buf: RequestText, ctx: RequestContext): string | undefined {
  for (const m of buf.text.matchAll(SAID_OF)) {
    // ("but not if the invoice is EUR", "unless the refund is EUR": left for the readers of a "not".)
    if (!isEventWord(m[1]!, ctx) || saidAgainst(buf.text, m.index)) continue;
    const at = m.index + m[0].length - m[2]!.length;
    cutOut(buf, { index: at, 0: m[2]! });
    return m[2]!.toUpperCase();
  }
  for (const m of buf.text.matchAll(CODE)) {
    if (!isEventWord(m[2]!, ctx)) continue;
    const code = readCurrency({ text: `in ${m[1]}` });
    if (code === undefined) continue;
    cutOut(buf, m as RegExpExecArray);
    return code;
  }
  return undefined;
}
