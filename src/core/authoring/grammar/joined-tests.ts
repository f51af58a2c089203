/**
 * A test of an event field joined to a trigger clause by "and" or "but" ("when a subscription is
 * cancelled and the reason is too expensive, ...", "if a payment fails but the plan is pro, ..."):
 * a condition, read as one. " and " becomes ": if " (the same length, so nothing else moves), and
 * the condition readers take the test as they take "when ...: if the reason is ...". Only where
 * nothing else could be meant: the trigger word starts its sentence and an event verb follows it,
 * no action is said before the test, the clause holds one such test and ends at a comma right
 * after it with one clause more to the request's end, and the value is one the events show for
 * that field ("too expensive" for `too_expensive`), said with "is", "was" or "are" (a negated test,
 * or a value in "not", is left to the readers as before). Pure.
 */
import { isActionVerb } from '../request-words.ts';
import type { RequestContext } from './request-context.ts';
import { saysHappened } from './trigger-words.ts';

const JOINED =
  /(?:^|[.;!?]\s+)(?:when|whenever|each time|every time|once|if|after)\b([^,.;:!?]*?) (and|but) (?:the |its |their )?([a-z][a-z_]*(?: [a-z][a-z_]*)?) (?:is|was|are) ([a-z0-9][a-z0-9 _-]*?),/g;

export function readJoinedTests(
  lower: string,
  raw: string,
  ctx: RequestContext,
): { lower: string; raw: string } {
  const events = ctx.events ?? [];
  let l = lower;
  let r = raw;
  for (const m of lower.matchAll(JOINED)) {
    const field = m[3]!.replace(/ /g, '_');
    const value = m[4]!.trim().replace(/[\s-]+/g, '_');
    // ("not as described": a value that reads as a negation is left to the readers as before.)
    if (/^(?:not|no|non)_/.test(value)) continue;
    // One clause after it, to the request's end: "..., give a $20 credit. Tag every account ..." says
    // more than the test decides.
    const rest = lower.slice(m.index + m[0].length);
    if (/[,.;:!?]\s*\S|\b(?:and|then|also|always|every|all)\b/.test(rest.replace(/[.!?]\s*$/, ''))) continue;
    const shown = events.some((e) => (e.values?.[field] ?? []).some((v) => v.toLowerCase() === value));
    if (!shown) continue;
    // The clause says an event happened ("if the reason is damaged and ..." is a test of its own),
    // and no action before the test ("when a refund is requested look up the order and ...").
    const said = m[1]!.split(/\s+/).filter(Boolean);
    if (!said.some((w) => saysHappened(w, ctx))) continue;
    if (said.some((w) => isActionVerb(w) && !saysHappened(w, ctx))) continue;
    if (/ (?:and|but) (?:the |its |their )?[a-z_]+ (?:is|was|are) /.test(m[1]!)) continue;
    const at = m.index + m[0].lastIndexOf(` ${m[2]} `);
    if (r.slice(at, at + 5).toLowerCase() !== ` ${m[2]} `) continue;
    l = `${l.slice(0, at)}: if ${l.slice(at + 5)}`;
    r = `${r.slice(0, at)}: if ${r.slice(at + 5)}`;
  }
  return { lower: l, raw: r };
}
