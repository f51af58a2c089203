/**
 * Text said for an argument by its name, without quotes: "reason: flagged by users", "title =
 * Checkout is down", "note: customer called twice". The argument is a free-text one of some tool
 * of the catalog (a string with no enum and no pattern, not an id); the text runs to the end of
 * its clause (a comma, a semicolon, a sentence's end, "and then", or the parenthesis it was said
 * in: "page the security on-call (service: security) with: ..."). It becomes a quoted value for
 * that argument (`ctx.argQuotes`), as read-routes.ts marks routes, so fill-args.ts gives it to the
 * step that takes it, and is listed under "Assumed". A text that is a field of an event ("title =
 * summary") is read-arg-phrases.ts's: left alone. ("with the note refunded ..." is not read: with
 * no colon, where the text ends is a guess, and a test or an action said after it would be lost.)
 */
import { asSentence } from './read-message-text.ts';
import type { ArgSchema, RequestContext } from './request-context.ts';

/** Arguments whose text is prose, said as a sentence: a note, a reason, a message's body. */
const PROSE = /(?:^|_)(?:note|notes|memo|comment|reason|message|body|text|summary)$/;

/** Marks `<argument>: <text>` in `lower` / `raw` (see the file's comment). */
export function readNamedTexts(
  lower: string,
  raw: string,
  ctx: RequestContext,
): { lower: string; raw: string } {
  const names = new Set<string>();
  for (const t of ctx.tools)
    for (const [n, s] of Object.entries((t.args.properties ?? {}) as Record<string, ArgSchema>))
      if (s?.type === 'string' && s.enum === undefined && s.pattern === undefined && !/(?:^|_)id$/.test(n))
        names.add(n);
  if (names.size === 0) return { lower, raw };
  const fields = new Set((ctx.events ?? []).flatMap((e) => e.payload));
  const said = [...names].map((n) => n.replace(/_/g, '[ _]')).join('|');
  const re = new RegExp(
    String.raw`(?<![a-z0-9_"-])(${said})\s*(?::|=)\s+(?!"q)([^,;:"()]+?)(?=\s*(?:[,;)]|[.!?](?:\s|$)|\s(?:and then|then)\s|$))`,
    'g',
  );
  let l = lower;
  let r = raw;
  for (const m of [...lower.matchAll(re)].reverse()) {
    const arg = m[1]!.replace(/ /g, '_');
    const at = m.index + m[0].length - m[2]!.length;
    const text = raw.slice(at, at + m[2]!.length).trim();
    if (
      text === '' ||
      fields.has(
        text
          .toLowerCase()
          .replace(/^(?:the|its)\s+/, '')
          .replace(/\s+/g, '_'),
      )
    )
      continue;
    const mark = `"q${ctx.quotes.length}"`;
    if (mark.length > m[2]!.length) continue;
    // Prose is said as a sentence, as a message text is ("note: refunded in full" "Refunded in
    // full."); a name or a title ("branch: north", "title = Checkout is down") and a lone
    // placeholder ("message = <summary>", the field's value as it comes) are kept as typed.
    ctx.quotes.push(PROSE.test(arg) && !/^<[^<>]+>$/.test(text) ? asSentence(text) : text);
    ctx.argQuotes.set(ctx.quotes.length - 1, { args: [arg], said: m[0] });
    ctx.assumptions.push(`"${m[0].trim()}" is read as the text ${JSON.stringify(text)} for ${arg}.`);
    const from = m.index;
    const end = at + m[2]!.length;
    const blank = `${' '.repeat(at - from)}${mark.padEnd(end - at, ' ')}`;
    l = l.slice(0, from) + blank + l.slice(end);
    r = r.slice(0, from) + blank + r.slice(end);
  }
  return { lower: l, raw: r };
}
