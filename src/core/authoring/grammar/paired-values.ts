/**
 * A value said in two words that the catalog does not list ("from the tip line", "via the help
 * desk"): where the first word, after a preposition, would only be assumed to be a value (a channel
 * the catalog never shows) and the second has no reading of its own, the two are one value, spelled as
 * events spell values (`tip_line`). Read alone, "tip" would test `source != "tip"`, a value no
 * event has, and the words' exclusion would leave out nothing.
 */

import type { EventShape } from '../compiled-request.ts';
import type { Qualifier } from './qualifier.ts';
import { probing, type RequestContext } from './request-context.ts';

/** How a word is read as a value of an event field (read-field-tests.ts's `fieldForValue`). */
type ValueReader = (
  word: string,
  shape: EventShape,
  ctx: RequestContext,
  how: Qualifier,
) => { field: string; value: string } | undefined;

/** The two words' value, or undefined when either word is read alone. */
export function pairedValue(
  q: Qualifier,
  next: Qualifier,
  shape: EventShape,
  ctx: RequestContext,
  fieldForValue: ValueReader,
): { field: string; value: string } | undefined {
  // Only after a preposition ("from the tip line"): "travel claims", "low prio" are a value and a noun.
  if (q.prep === undefined || NOT_A_VALUE.test(next.word)) return undefined;
  const first = probing(ctx);
  const alone = fieldForValue(q.word, shape, first, q);
  // The first word is a value the catalog lists or shows, or no value at all: read as before.
  // ("on the phone channel": the second word is the field's own, naming it, not its value.)
  if (!alone || first.assumptions.length === 0 || ownWord(next.word, alone.field)) return undefined;
  const second = probing(ctx);
  if (fieldForValue(next.word, shape, second, next) !== undefined) return undefined;
  const value = `${q.word}_${next.word}`;
  ctx.assumptions.push(
    `"${q.word} ${next.word}" is read as ${shape.type}'s ${alone.field} "${value}": one value said in two words, which the catalog does not list.`,
  );
  return { field: alone.field, value };
}

/** A word of the field's own name ("channel" of `channel`, "tier" of `customer_tier`). */
export const ownWord = (word: string, field: string) =>
  field.toLowerCase().split('_').includes(word.toLowerCase());

/** Words after a value that are never its second word ("reported for illegal content": illegal). */
const NOT_A_VALUE =
  /^(?:it|its|is|are|was|were|be|today|yesterday|now|again|only|too|also|first|please|pls|ones?|content|material|stuff|things?|behaviou?r|activity|language)$/;

/**
 * `first_second` when "first second" names one value of `field` ("came in via the tip line"):
 * neither word alone is a value the catalog lists for it (`listed`) or its samples show; else
 * undefined.
 */
export function twoWordValue(
  first: string,
  second: string,
  field: string,
  listed: readonly string[],
  shape: EventShape,
  ctx: RequestContext,
): string | undefined {
  const known = new Set([...listed, ...(shape.values?.[field] ?? [])].map((v) => v.toLowerCase()));
  if (known.has(first) || known.has(second) || NOT_A_VALUE.test(second) || ownWord(second, field))
    return undefined;
  const value = `${first}_${second}`;
  ctx.assumptions.push(
    `"${first} ${second}" is read as ${shape.type}'s ${field} "${value}": one value said in two words, which the catalog does not list.`,
  );
  return value;
}
