/**
 * A value of the events said beside their noun, read as a test of the trigger: a way in for the
 * event's one channel field ("tag new tickets from email", "email tickets": `payload.channel ==
 * "email"`), and a value sample events show of a field named for whom it sorts (`seller_tier`
 * sorts sellers: "from new sellers" is `payload.seller_tier == "new"`, "new" too). Read in a
 * trigger's clause (read-trigger.ts) and in the rest of the request (read-field-tests.ts). Pure.
 */
import type { EventShape } from '../compiled-request.ts';
import { lemmas } from '../request-words.ts';
import { cutOut, type RequestText } from './request-context.ts';
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

/** The event's one field for the way it came in (`channel`, `source_channel`), if one. */
export function channelField(shape: EventShape): string | undefined {
  const fields = shape.payload.filter((p) => p.split('_').some((x) => /^(?:channel|via|medium)$/.test(x)));
  return fields.length === 1 ? fields[0] : undefined;
}

/**
 * The tests the words say by a value beside the events' noun, each cut out of `buf`. `ways`: the
 * values a tool lists for the channel field; with none, a way is one the samples show or a word
 * only a channel is ("from new sellers" is no channel).
 */
export function readValuesByNoun(buf: RequestText, shape: EventShape, ways: readonly string[]): string[] {
  const out: string[] = [];
  const channel = channelField(shape);
  if (channel !== undefined) {
    const noun = splitType(shape.type)[0].split('.').pop()!;
    const known = new Set([...(shape.values?.[channel] ?? []), ...ways].map((v) => v.toLowerCase()));
    const said = new RegExp(
      String.raw`\b${noun}s? (?:from|via|thru|through|over|by) (?:the )?([a-z][a-z0-9-]*)\b|\b([a-z][a-z0-9-]*) (?=${noun}s\b)`,
      'g',
    );
    for (const m of [...buf.text.matchAll(said)]) {
      const way = m[1] ?? m[2]!;
      if (!(known.has(way) || (known.size === 0 && isChannelWord(way)))) continue;
      out.push(`payload.${channel} == ${JSON.stringify(way)}`);
      cutOut(buf, { index: m.index + m[0].indexOf(way, m[1] ? noun.length : 0), 0: way });
    }
  }
  for (const { field, who, values } of sortingFields(shape))
    for (const v of values)
      for (const m of [
        ...buf.text.matchAll(new RegExp(String.raw`\b${v.replace(/[_-]/g, '[ _-]')}(?= ${who}s?\b)`, 'g')),
      ]) {
        out.push(`payload.${field} == ${JSON.stringify(v)}`);
        cutOut(buf, m);
      }
  return out;
}
