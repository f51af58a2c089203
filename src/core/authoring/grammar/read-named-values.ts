/**
 * A field of the event named with its value, the way people head a rule: `reason "wrong size" ->`,
 * `reason = never arrived:`, `... + reason 'arrived damaged':`, `if the reason is "arrived damaged"`,
 * `for reason 'damaged', ...`. The value is kept as typed (quoted, or the words up to the heading's
 * colon), so a value of several words is never cut to one; the phrase is cut out of the text. A
 * field the event does not carry is left for the other readers (and their questions). Pure.
 */
import type { EventShape } from '../compiled-request.ts';
import { isActionVerb, lemmas } from '../request-words.ts';
import { cutOut, type RequestContext, type RequestText } from './request-context.ts';

/**
 * The event's field `said` names as a whole ("reason", "order id"), or undefined. Stricter than
 * read-field-tests.ts's `fieldNamed` (which takes a part of a name, "tier" for `customer_tier`) on
 * purpose: a heading's value is no argument's ("link 12 hours" is a link's lifetime, never a test
 * of `link_hours`).
 */
function fieldOf(said: string, shape: EventShape): string | undefined {
  const name = said.trim().replace(/\s+/g, '_');
  const hits = shape.payload.filter((p) => p === name || lemmas(name).includes(p));
  return hits.length === 1 ? hits[0] : undefined;
}

/** The tests the text says by naming a field with its value, each cut out of `buf`. */
export function readNamedValues(
  buf: RequestText,
  raw: string,
  shape: EventShape,
  ctx: RequestContext,
): string[] {
  const out: string[] = [];
  // A quoted value after the field's name: "reason 'wrong size'", "if the reason is 'x'", "reason = 'x'".
  // Said as a heading (at the start, or after "+", "&", a comma) or after "if" / "when" / "for" /
  // "from" ("invoices from vendor 'Acme Corp'"):
  // "tell the approver 'Paid.'" is a message to the approver, no test.
  const quoted =
    /(?:(?<=^|[.;!?:,+&(]\s*)|(?<![a-z0-9_])(?:if|when|for|where|with|from|only (?:if|when|for)) (?:the |its |their )?)([a-z][a-z_]*(?: [a-z][a-z_]*)?)\s*(?:==?|:|is|of)?\s*(not\s+)?"q([0-9]+)"(?=\s*(?:$|[:,;.)+&]|\band\b|\bthen\b|\s-\s|\b(?:automatically|only|too|please|pls)\b))/g;
  for (const m of [...buf.text.matchAll(quoted)]) {
    const field = fieldOf(m[1]!, shape) ?? fieldOf(m[1]!.split(' ').pop()!, shape);
    const value = ctx.quotes[Number(m[3])];
    if (field === undefined || value === undefined) continue;
    // ("enterprise: email 'Hi, we're on it'": a verb with its text, said with no "is", ":" or "=".)
    if (isActionVerb(m[1]!.split(' ')[0]!) && !/(?:=|:|\bis\b|\bof\b)\s*(?:not\s+)?"q[0-9]+"$/.test(m[0]))
      continue;
    out.push(`payload.${field} ${m[2] ? '!=' : '=='} ${JSON.stringify(value)}`);
    cutOut(buf, m as RegExpExecArray);
  }
  // An unquoted value between the field's name and the heading's colon: "reason = never arrived: ...".
  const heading =
    /(?:^|(?<=[.;!?]\s+))([a-z][a-z_]*(?: [a-z][a-z_]*)?)\s*(?:==?|is)\s*([a-z0-9][a-z0-9 '-]{0,40}?)\s*:/g;
  for (const m of [...buf.text.matchAll(heading)]) {
    const field = fieldOf(m[1]!, shape);
    if (field === undefined) continue;
    const at = m.index! + m[0].indexOf(m[2]!, m[1]!.length);
    out.push(`payload.${field} == ${JSON.stringify(raw.slice(at, at + m[2]!.length))}`);
    cutOut(buf, m as RegExpExecArray);
  }
  for (const t of out)
    ctx.assumptions.push(
      `${t.replace(/^payload\./, `${shape.type}'s `)} is read from the field said with its value.`,
    );
  return out;
}
