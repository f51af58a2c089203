/**
 * Values the catalog lists for a field of the event (a tool's enum for an argument of the field's
 * name, or the catalog's classes, class-fields.ts), and the tests they say of the events: a value
 * before the events' noun ("travel expenses", "meal expenses" of `meals`), after "for" / "on", or
 * negated ("never approve alcohol"). Pure but for the assumptions it lists.
 */
import type { EventShape } from '../compiled-request.ts';
import { classValues, note, shownByOthers } from './class-fields.ts';
import { cutOut, knownWords, type RequestContext, type RequestText } from './request-context.ts';
import { singular } from './trigger-words.ts';
import { shortFormOf } from './value-short-forms.ts';

/**
 * The values tools' enums list for an argument named like the event field `field` ("other" left
 * out), where they share a value with the samples of the field if any; none named so, for a classification field no sample shows, the catalog's classes
 * (class-fields.ts).
 */
export function enumValues(field: string, shape: EventShape, ctx: RequestContext): string[] {
  const values = new Set<string>();
  const sampled = shape.values?.[field];
  for (const t of ctx.tools) {
    const prop = (t.args.properties as Record<string, { enum?: unknown }> | undefined)?.[field];
    // A list that shares no value with what the samples show is another scale of the same name
    // (an incident's sev1-sev3 beside an alert's critical/warning): not the event's values.
    if (!Array.isArray(prop?.enum) || (sampled && !prop.enum.some((v) => sampled.includes(v as string))))
      continue;
    for (const v of prop.enum) if (typeof v === 'string' && v !== 'other') values.add(v);
  }
  if (values.size === 0) for (const v of classValues(field, shape, ctx)) if (v !== 'other') values.add(v);
  // A value no sample shows for this field and one shows for another is the other's: "comes back
  // damaged" tests a return's sampled `condition`, not the `reason` a refund's list names alike.
  if (sampled === undefined) for (const v of shownByOthers(field, shape)) values.delete(v);
  return [...values].sort();
}

/** A test on `field` read from the catalog's classes: listed under Assumed (class-fields.ts). */
export function noteClass(field: string, shape: EventShape, ctx: RequestContext): void {
  if (classValues(field, shape, ctx).length > 0) note(field, shape, ctx);
}

/** The tests the listed values said of the events read out of `buf`, each cut out. */
export function readListedValues(
  buf: RequestText,
  shape: EventShape,
  event: string,
  ctx: RequestContext,
): string[] {
  const out: string[] = [];
  // A value a tool's enum lists for an argument named like an event field, before a plural ("travel
  // expenses": which ones), after "for" / "on", or negated. Before a singular it is the value an
  // action sets ("grant read access" -> level: read), read by fill-args.
  // (Said short too: "misinfo reports", Assumed.)
  const listedValues = shape.payload.flatMap((f) => enumValues(f, shape, ctx));
  const saidShort = new Map<string, string>();
  for (const w of new Set(buf.text.match(/[a-z]{4,}/g) ?? [])) {
    const v = shortFormOf(w, listedValues, knownWords(ctx));
    if (v !== undefined) saidShort.set(w, v);
  }
  const EVENT_NOUNS = 'expenses|reports|claims|items|requests|tickets';
  for (const field of shape.payload) {
    for (const v of enumValues(field, shape, ctx)) {
      const noun = event.split('.')[0]!;
      // ("meal expenses" of a list that says `meals`: the value said in the singular before a noun.)
      const one = singular(v);
      const shorts = [
        ...[...saidShort].filter(([, full]) => full === v).map(([w]) => w),
        ...(one !== v && one.length >= 4 ? [one] : []),
      ];
      const said = shorts.length ? `(?:${[v, ...shorts].join('|')})` : v;
      const re = new RegExp(
        String.raw`\b(?:((?:never|not|no|except|excluding|but not)(?: [a-z]+){0,2}) ${said}\b|(?:for|on) (?:the )?${said}\b|${said} (?=(?:${noun}s|${EVENT_NOUNS})\b))`,
        'g',
      );
      for (const m of [...buf.text.matchAll(re)]) {
        // "credit them $50 for retention": right after the amount an action moves, a value no sample
        // shows the events having is the action's own (fill-args.ts). ("sign it for premium" stays a
        // test: the narrower reading, where the words could say either.)
        const after = buf.text.slice(0, m.index).trimEnd();
        if (
          /^(?:for|on) /.test(m[0]) &&
          !shape.values?.[field]?.includes(v) &&
          /(?:\$[0-9][0-9,.]*k?|\b[0-9][0-9,.]*k? (?:dollars|bucks|usd))$/.test(after) &&
          !new RegExp(String.raw`^\s*(?:${noun}s?|${EVENT_NOUNS})\b`).test(
            buf.text.slice(m.index + m[0].length),
          )
        )
          continue;
        const short = shorts.find((w) => new RegExp(String.raw`\b${w}\b`).test(m[0]));
        if (short !== undefined)
          ctx.assumptions.push(`"${short}" is read as ${shape.type}'s ${field} "${v}", said short.`);
        out.push(`payload.${field} ${m[1] ? '!=' : '=='} ${JSON.stringify(v)}`);
        noteClass(field, shape, ctx);
        // A negated action ("never approve alcohol") is the same action with a test: all of it goes.
        cutOut(buf, m as RegExpExecArray);
      }
    }
  }
  return out;
}
