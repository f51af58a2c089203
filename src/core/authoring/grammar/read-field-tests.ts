/**
 * Field tests said in words, as trigger conditions over the event's payload fields: "unless the
 * reason is fraud" (`payload.reason != "fraud"`), "only if the channel is email", "tickets that came
 * in by chat" (the event's one channel/source field), and a value a tool's `enum` lists for an
 * argument named like one of the event's fields: "travel expenses", "submitted for alcohol"
 * (`payload.category == "travel"`), negated by "never" / "not" / "except" just before it. Read once
 * the trigger is known; each phrase read is cut out of the text, so it is not taken for an action.
 */
import { lemmas } from '../request-words.ts';
import { cutOut, type RequestContext, type RequestText } from './request-context.ts';

const NEGATIONS = /^(?:unless|except(?: when| if)?|but not(?: when| if)?|not (?:when|if))$/;

export function readFieldTests(
  buf: RequestText,
  raw: string,
  event: string | undefined,
  ctx: RequestContext,
): string[] {
  const shape = ctx.events?.find((e) => e.type === event);
  if (!shape) return [];
  const out: string[] = [];
  const fieldNamed = (words: string): string | undefined => {
    const said = words.trim().replace(/\s+/g, '_');
    const hits = shape.payload.filter(
      (p) =>
        p === said ||
        lemmas(said).includes(p) ||
        p.split('_').some((part) => part.length > 3 && lemmas(said).includes(part)),
    );
    return hits.length === 1 ? hits[0] : undefined;
  };
  // "unless the reason is fraud", "only if the customer tier is gold"
  const is =
    /\b(unless|except(?: when| if)?|but not(?: when| if)?|not (?:when|if)|only (?:if|when)|if|when|where) (?:the |its |their )?([a-z][a-z_]*(?: [a-z][a-z_]*)?) (?:is|equals) (?:not )?(?:a |an |the )?([a-z0-9][a-z0-9_-]*(?: (?!and\b|then\b|or\b|but\b)[a-z0-9][a-z0-9_-]*){0,3})(?=\s*(?:$|[,.;!?:]|\band\b|\bthen\b|\bor\b|\bbut\b))/g;
  for (const m of [...buf.text.matchAll(is)]) {
    const field = fieldNamed(m[2]!);
    if (!field) continue;
    const negated = NEGATIONS.test(m[1]!) !== / is not /.test(m[0]);
    // The value as written: "Acme", not "acme".
    const at = m.index + m[0].length - m[3]!.length;
    out.push(`payload.${field} ${negated ? '!=' : '=='} ${JSON.stringify(raw.slice(at, at + m[3]!.length))}`);
    cutOut(buf, m);
  }
  // "unless it came in by chat", "that came in via email": the event's one channel field.
  const via =
    /\b(unless|except if|that|which|if|when)? ?(?:it |they )?(?:came in|comes in|arrived|arrives|was sent|were sent|is sent|was opened|came) (?:by|via|through|over|on|from) (?:the )?([a-z][a-z0-9_-]*)\b/g;
  for (const m of [...buf.text.matchAll(via)]) {
    const fields = shape.payload.filter((p) => /channel|source|via|medium/.test(p));
    if (fields.length !== 1) continue;
    const negated = m[1] !== undefined && NEGATIONS.test(m[1]);
    out.push(`payload.${fields[0]} ${negated ? '!=' : '=='} ${JSON.stringify(m[2])}`);
    cutOut(buf, m);
  }
  // A value a tool's enum lists for an argument named like an event field, before a plural ("travel
  // expenses": which ones), after "for" / "on", or negated. Before a singular it is the value an
  // action sets ("grant read access" -> level: read), read by fill-args.
  for (const field of shape.payload) {
    const values = new Set<string>();
    for (const t of ctx.tools) {
      const prop = (t.args.properties as Record<string, { enum?: unknown }> | undefined)?.[field];
      if (Array.isArray(prop?.enum))
        for (const v of prop.enum) if (typeof v === 'string' && v !== 'other') values.add(v);
    }
    for (const v of [...values].sort()) {
      const noun = event!.split('.')[0]!;
      const re = new RegExp(
        String.raw`\b(?:((?:never|not|no|except|excluding|but not)(?: [a-z]+){0,2}) ${v}\b|(?:for|on) (?:the )?${v}\b|${v} (?=(?:${noun}s|expenses|reports|claims|items|requests|tickets)\b))`,
        'g',
      );
      for (const m of [...buf.text.matchAll(re)]) {
        out.push(`payload.${field} ${m[1] ? '!=' : '=='} ${JSON.stringify(v)}`);
        // A negated action ("never approve alcohol") is the same action with a test: all of it goes.
        cutOut(buf, m as RegExpExecArray);
      }
    }
  }
  return out;
}
