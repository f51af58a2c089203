/**
 * An identifier said as written ("V-100", "PO-5001") that fits the `pattern` of the tools'
 * argument named like one of the event's fields (`vendor_id`: `^V-[0-9]+$`) is a value of that
 * field: "invoices from V-100" tests `payload.vendor_id == "V-100"`. Only a word with a digit is
 * read so (a pattern any plain word fits says nothing), in the case the pattern takes ("v-100" is
 * "V-100"), and only when it fits exactly one field; listed under "Assumed" with why.
 */
import type { EventShape } from '../compiled-request.ts';
import type { RequestContext } from './request-context.ts';

/** The patterns the catalog's tools give an argument named `field` (none: empty). */
function patternsOf(field: string, ctx: RequestContext): RegExp[] {
  const out: RegExp[] = [];
  for (const t of ctx.tools) {
    const prop = (t.args.properties as Record<string, { pattern?: unknown }> | undefined)?.[field];
    if (typeof prop?.pattern !== 'string') continue;
    try {
      out.push(new RegExp(prop.pattern, 'u'));
    } catch {
      // A pattern JavaScript cannot read fits nothing here.
    }
  }
  return out;
}

/** The event field `word` is a value of by its tools' patterns, and the value as the pattern takes it. */
export function fieldByPattern(
  word: string,
  shape: EventShape,
  ctx: RequestContext,
): { field: string; value: string } | undefined {
  if (!/[0-9]/.test(word) || !/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(word)) return undefined;
  const hits = shape.payload.flatMap((field) => {
    const patterns = patternsOf(field, ctx);
    if (patterns.length === 0) return [];
    const value = [word, word.toUpperCase()].find((v) => patterns.every((p) => p.test(v)));
    return value === undefined ? [] : [{ field, value }];
  });
  if (hits.length !== 1) return undefined;
  const hit = hits[0]!;
  ctx.assumptions.push(
    `"${hit.value}" is read as ${shape.type}'s ${hit.field} "${hit.value}": it has the form of a ${hit.field}.`,
  );
  return hit;
}
