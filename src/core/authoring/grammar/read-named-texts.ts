/**
 * Text said for an argument by its name, without quotes: "reason: flagged by users", "title =
 * Checkout is down", "note: customer called twice". The argument is a free-text one of some tool
 * of the catalog (a string with no enum and no pattern, not an id); the text runs to the end of
 * its clause (a comma, a semicolon, a sentence's end, "and then", or the parenthesis it was said
 * in: "page the security on-call (service: security) with: ..."). It becomes a quoted value for
 * that argument (`ctx.argQuotes`), as read-routes.ts marks routes, so fill-args.ts gives it to the
 * step that takes it, and is listed under "Assumed". A text that is a field of an event ("title =
 * summary") is read-arg-phrases.ts's: left alone.
 *
 * Prose said after "with" without a colon ("close the ticket with the note non-USD refund", "w/ note
 * awaiting return") is read too, for a prose argument (a note, a memo, a reason): it runs as a message
 * text said without a colon does (read-message-text.ts's `textEnd`), to the end of its sentence, or to
 * ", <an action of the catalog> it/them/the ...", "and then", "unless ...": an action said after it
 * is never taken into it. Text that holds a word of a test, a bound or a joined action ("if", "or",
 * "so"), an action of the catalog ("hide it") or a number ("with reason goodwill if they're gold",
 * "with note refunded under $20", "with the note thanks so hide it") is not read: it is asked.
 */
import { asSentence, catalogVerbs, textEnd } from './read-message-text.ts';
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
    [l, r] = marked([l, r], m.index, at, at + m[2]!.length, mark);
  }
  return readWithProse(
    l,
    r,
    [...names].filter((n) => PROSE.test(n)),
    ctx,
  );
}

/** Words after "with the note" that lead no text of its own ("with a note about it", "with the note saying"). */
const NO_TEXT =
  /^(?:saying|that|about|of|to|for|from|in|on|at|by|as|with|and|or|if|when|unless|it|them|their|the|a|an)\b/;

/** A cap said after a note, past a comma: ", max 25", ", capped at $40", ", up to 30". */
const CAP_AFTER = /,\s*(?:max|maximum|cap|capped|limit|up to|at most|no more than|never more than)\b/;
/** Words that may say a test or a bound rather than the text's own words. */
const MAY_TEST =
  /\b(?:if|when|whenever|unless|except|only|but|or|so|then|else|otherwise|provided|long|over|under|above|below|more|less|max|maximum|cap|capped|limit|most|never|no|not|nothing|dont|don't|for)\b|[$0-9]/;

/** Marks "with [the] <prose argument> <text>" (see the file's comment). */
function readWithProse(
  lower: string,
  raw: string,
  prose: readonly string[],
  ctx: RequestContext,
): { lower: string; raw: string } {
  if (prose.length === 0) return { lower, raw };
  const said = prose.map((n) => n.replace(/_/g, '[ _]')).join('|');
  const re = new RegExp(
    String.raw`(?<![a-z0-9_"-])(?:with|w/)\s+(?:(?:the|a|an)\s+)?(${said})\s+(?=[a-z0-9$<])`,
    'g',
  );
  const verbs = catalogVerbs(ctx);
  let l = lower;
  let r = raw;
  for (const m of [...lower.matchAll(re)].reverse()) {
    const at = m.index + m[0].length;
    if (NO_TEXT.test(l.slice(at))) continue;
    // ("with the note sorry, max 25": the cap after a comma is the run's, read by the money readers.)
    const run = l.slice(at, textEnd(l, at, false, verbs));
    const end =
      at + run.slice(0, run.search(CAP_AFTER) < 0 ? run.length : run.search(CAP_AFTER)).trimEnd().length;
    const text = r
      .slice(at, end)
      .replace(/[.!?]+$/, '')
      .trim();
    const mark = `"q${ctx.quotes.length}"`;
    // (A test or an amount said in it may be the step's own condition: "with reason goodwill if
    // they're gold", "with note refunded under $20". Not read: asked, as before.)
    const lowered = text.toLowerCase();
    const acts = [...lowered.matchAll(/\b([a-z]+)\s+(?:it|them|the|their|this|that)\b/g)].some((a) =>
      verbs.has(a[1]!),
    );
    if (lowered.split(/\s+/).length > 12 || mark.length > end - at || MAY_TEST.test(lowered) || acts)
      continue;
    const arg = m[1]!.replace(/ /g, '_');
    ctx.quotes.push(asSentence(text));
    ctx.argQuotes.set(ctx.quotes.length - 1, { args: [arg], said: m[0] + text });
    ctx.assumptions.push(`"${(m[0] + text).trim()}" is read as the text ${JSON.stringify(text)} for ${arg}.`);
    [l, r] = marked([l, r], m.index, at, end, mark);
  }
  return { lower: l, raw: r };
}

/** The texts `[lower, raw]` with a text's lead-in (`from`..`at`) blanked and the text (`at`..`end`) marked. */
function marked(
  texts: [string, string],
  from: number,
  at: number,
  end: number,
  mark: string,
): [string, string] {
  const blank = `${' '.repeat(at - from)}${mark.padEnd(end - at, ' ')}`;
  return texts.map((t) => t.slice(0, from) + blank + t.slice(end)) as [string, string];
}
