/**
 * The event a trigger means when its noun fits several events and no verb says which ("chat
 * tickets", with a ticket.opened that carries a channel field and a ticket.resolved that does not):
 * the one event whose fields hold every word said with the noun (read-field-tests.ts
 * fieldForValue), listed under "Assumed" with why. Said with no event's noun at all ("dhl:",
 * "interns:"), every event of the catalog is a candidate, on the same terms. None or several: undefined, and the trigger
 * reader asks, as before.
 */
import type { EventShape } from '../compiled-request.ts';
import type { Qualifier } from './qualifier.ts';
import { fieldForValue } from './read-field-tests.ts';
import { probing, type RequestContext } from './request-context.ts';

export function eventByValues(
  candidates: readonly EventShape[],
  qualifiersOf: (shape: EventShape) => readonly Qualifier[],
  ctx: RequestContext,
  /** False: the words name no event's noun, and the candidates are every event of the catalog. */
  byNoun = true,
): EventShape | undefined {
  if (candidates.length < 2) return undefined;
  const holds = (shape: EventShape) => {
    const qs = qualifiersOf(shape);
    // Only words that are values: a word the catalog uses only as its own noun says nothing here.
    if (qs.length === 0) return false;
    const scratch = probing(ctx);
    return qs.every((q) => fieldForValue(q.word, shape, scratch, q) !== undefined);
  };
  const fit = candidates.filter(holds);
  if (fit.length !== 1) return undefined;
  const words = qualifiersOf(fit[0]!).map((q) => `"${q.word}"`);
  ctx.assumptions.push(
    `The workflow starts on ${fit[0]!.type}: ${byNoun ? "of the events the request's noun names" : "the request names no event; of the catalog's"} (${candidates.map((e) => e.type).join(', ')}), only it carries a field for ${words.join(' and ')}.`,
  );
  return fit[0];
}
