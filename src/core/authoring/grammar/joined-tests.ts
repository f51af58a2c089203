/**
 * A test of an event field joined to a trigger clause by "and" or "but" ("when a subscription is
 * cancelled and the reason is too expensive, ...", "if a payment fails but the plan isn't pro"):
 * a condition, read as one. " and " becomes ": if " (the same length, so nothing else moves), and
 * the condition readers take the test as they take "when ...: if the reason is ...". Only a
 * field some event of the catalog carries, said with "is", "was", "are" or their negations, and
 * only in the clause the trigger word starts (up to its comma or sentence end). Pure.
 */
import type { RequestContext } from './request-context.ts';

const JOINED =
  /\b(?:when|whenever|each time|every time|once|if|after)\b[^,.;:!?]*? (and|but) (?:the |its |their )?([a-z][a-z_]*(?: [a-z][a-z_]*)?) (?:is|isn'?t|was|wasn'?t|are|aren'?t)\b/g;

export function readJoinedTests(
  lower: string,
  raw: string,
  ctx: RequestContext,
): { lower: string; raw: string } {
  const fields = new Set((ctx.events ?? []).flatMap((e) => e.payload));
  let l = lower;
  let r = raw;
  for (const m of lower.matchAll(JOINED)) {
    if (!fields.has(m[2]!.replace(/ /g, '_'))) continue;
    const at = m.index + m[0].lastIndexOf(` ${m[1]} `);
    if (r.slice(at, at + 5).toLowerCase() !== ` ${m[1]} `) continue;
    l = `${l.slice(0, at)}: if ${l.slice(at + 5)}`;
    r = `${r.slice(0, at)}: if ${r.slice(at + 5)}`;
  }
  return { lower: l, raw: r };
}
