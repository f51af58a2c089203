/**
 * A value of the events said beside their noun or their arrival, read as a test of the trigger: a
 * way in for the event's one channel field ("unless it came in by chat", "tickets opened by
 * email", "tag new tickets from email", "email tickets": `payload.channel == "email"`), and a value
 * sample events show of a field named for whom it sorts (`seller_tier` sorts sellers: "from new
 * sellers" is `payload.seller_tier == "new"`, "new" too). Each turned around by "except", "not
 * from", "other than" said before it. Read in a trigger's clause (read-trigger.ts) and in the rest
 * of the request (read-field-tests.ts). Pure.
 */
import type { EventShape } from '../compiled-request.ts';
import { lemmas } from '../request-words.ts';
import { twoWordValue } from './paired-values.ts';
import { cutOut, type RequestContext, type RequestText } from './request-context.ts';
import { splitType } from './trigger-words.ts';
import { isChannelWord } from './value-words.ts';

export interface SortingField {
  readonly field: string;
  /** The noun it sorts: the first part of its name (`seller`). */
  readonly who: string;
  /** The values sample events show, each a word or words joined by `_` or `-`. */
  readonly values: readonly string[];
}

export function sortingFields(shape: EventShape): SortingField[] {
  return shape.payload.flatMap((field) => {
    const who = field.split('_')[0]!;
    const values = (shape.values?.[field] ?? []).filter((v) => /^[a-z][a-z0-9_-]*$/.test(v));
    return who !== field && who.length > 2 && values.length > 0 ? [{ field, who, values }] : [];
  });
}

/** The field `value` said before `noun` sorts by ("new", "sellers": seller_tier); undefined when none or several. */
export function fieldSorting(value: string, noun: string | undefined, shape: EventShape): string | undefined {
  if (noun === undefined) return undefined;
  const hits = sortingFields(shape).filter((s) => s.values.includes(value) && lemmas(noun).includes(s.who));
  return hits.length === 1 ? hits[0]!.field : undefined;
}

/**
 * Whether the words just before `at` turn what follows around ("except email tickets", "not from
 * new sellers", "other than email tickets"); if so they are cut out with it.
 */
function turned(buf: RequestText, at: number): boolean {
  const from = Math.max(0, at - 40);
  const m =
    /\b(?:not|except(?: for)?|excluding|other than|apart from|aside from|never|no)\s+(?:(?:from|via|by|for|the|any|a|an)\s+)?$/.exec(
      buf.text.slice(from, at),
    );
  if (m) cutOut(buf, { index: from + m.index, 0: m[0] });
  return m !== null;
}

/** The event's one field for the way it came in (`channel`, `source`, `source_channel`), if one. */
export function channelField(shape: EventShape): string | undefined {
  const fields = shape.payload.filter((p) =>
    p.split('_').some((x) => /^(?:channel|source|via|medium)$/.test(x)),
  );
  return fields.length === 1 ? fields[0] : undefined;
}

/**
 * The tests the words say by a value beside the events' noun, each cut out of `buf`. `ways`: the
 * values the channel field's samples show or a tool lists for it; with none, a word only a channel
 * is ("from new sellers" is no channel).
 */
export function readValuesByNoun(buf: RequestText, shape: EventShape, ways: readonly string[]): string[] {
  const out: string[] = [];
  const channel = channelField(shape);
  if (channel !== undefined) {
    const noun = splitType(shape.type)[0].split('.').pop()!.replace(/_/g, '[ _-]');
    const known = new Set(ways.map((v) => v.toLowerCase()));
    const said = new RegExp(
      String.raw`\b${noun}s? (?:from|via|thru|through|over|by) (?:the )?([a-z][a-z0-9-]*)\b|\b([a-z][a-z0-9-]*) (?=${noun}s\b)`,
      'g',
    );
    for (const m of [...buf.text.matchAll(said)]) {
      const way = m[1] ?? m[2]!;
      if (!(known.has(way) || (known.size === 0 && isChannelWord(way)))) continue;
      out.push(`payload.${channel} ${turned(buf, m.index) ? '!=' : '=='} ${JSON.stringify(way)}`);
      cutOut(buf, { index: m[1] ? m.index + m[0].length - way.length : m.index, 0: way });
    }
  }
  for (const { field, who, values } of sortingFields(shape))
    for (const v of values)
      for (const m of [
        ...buf.text.matchAll(new RegExp(String.raw`\b${v.replace(/[_-]/g, '[ _-]')}(?= ${who}s?\b)`, 'g')),
      ]) {
        out.push(`payload.${field} ${turned(buf, m.index) ? '!=' : '=='} ${JSON.stringify(v)}`);
        cutOut(buf, m);
      }
  return out;
}

/** "came in by chat", "tickets opened by email": a verb of arrival, then the way. */
const WAY_IN =
  /\b(unless|except if|that|which|if|when)? ?(?:it |they )?(came in|comes in|arrived|arrives|was sent|were sent|is sent|was opened|came|opened|created|submitted|raised|received) (?:by|via|through|over|on|from) (?:the )?([a-z][a-z0-9_-]*)(?: ([a-z][a-z0-9-]*)(?=\s*(?:$|[,.;:!?)]|\b(?:and|or|but|then)\b)))?\b/g;

/**
 * The channel field's tests the words say with a verb of arrival, each cut out of `buf`: "unless it
 * came in by chat" (`!=`), "that came in via the tip line" (one value in two words the catalog
 * does not know, paired-values.ts). After a bare verb ("opened by ...") only a way in is read:
 * "opened by the customer" says who.
 */
export function readWayIn(
  buf: RequestText,
  shape: EventShape,
  ways: readonly string[],
  ctx: RequestContext,
): string[] {
  const channel = channelField(shape);
  if (channel === undefined) return [];
  const out: string[] = [];
  for (const m of [...buf.text.matchAll(WAY_IN)]) {
    if (!/came|comes|arriv|sent/.test(m[2]!) && !ways.includes(m[3]!) && !isChannelWord(m[3]!)) continue;
    const negated = m[1] === 'unless' || m[1] === 'except if';
    const value = (m[4] && twoWordValue(m[3]!, m[4], channel, ways, shape, ctx)) || m[3]!;
    out.push(`payload.${channel} ${negated ? '!=' : '=='} ${JSON.stringify(value)}`);
    cutOut(buf, m);
  }
  return out;
}
