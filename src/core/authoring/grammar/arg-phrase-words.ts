/**
 * The words of argument phrases (read-arg-phrases.ts): the request's text as tokens, and the event
 * field (or the event's own id) that words like "the alert's summary" or "the summary of the alert"
 * name. Pure.
 */

import type { ToolDescriptor } from '../../tools/tool-descriptor.ts';
import type { EventShape } from '../compiled-request.ts';
import { lemmas } from '../request-words.ts';

export interface Token {
  readonly t: string;
  readonly at: number;
  readonly end: number;
  readonly kind: 'word' | 'quote' | 'punct';
}

/** Words before a noun that say nothing about which field. */
export const DETERMINERS = new Set([
  'the',
  'its',
  'their',
  'this',
  'that',
  'his',
  'her',
  'our',
  'each',
  'every',
  'an',
  'a',
]);

/** Words for an event's own id. */
export const ID_WORDS = new Set(['id', 'identifier', 'ref', 'reference', 'subject']);

export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(/"q[0-9]+"|w\/|[a-z0-9][a-z0-9_-]*|[^\sa-z0-9]/g)) {
    const t = m[0] === 'w/' ? 'with' : m[0];
    const kind = t.startsWith('"q') ? 'quote' : /^[a-z0-9]/.test(t) ? 'word' : 'punct';
    out.push({ t, at: m.index, end: m.index + m[0].length, kind });
  }
  return out;
}

export const sameWord = (said: string, name: string) => said === name || lemmas(said).includes(name);

/** The value an event field or the event's id stands for, from the words that name it. */
export function fieldValue(words: readonly string[], shapes: readonly EventShape[]): string | undefined {
  let w = [...words];
  while (w.length > 0 && DETERMINERS.has(w[0]!)) w = w.slice(1);
  const nouns = new Set(shapes.flatMap((s) => [s.type.split('.')[0]!, 'event']));
  // "the summary of the alert": the event's own noun after "of".
  const of = w.indexOf('of');
  if (of > 0) {
    const tail = w.slice(of + 1).filter((x) => !DETERMINERS.has(x));
    if (tail.length !== 1 || ![...nouns].some((n) => sameWord(tail[0]!, n))) return undefined;
    w = [tail[0]!, ...w.slice(0, of)];
  }
  if (w.length === 0 || w.length > 4) return undefined;
  const fields = [...new Set(shapes.flatMap((s) => s.payload))];
  const named = (ws: readonly string[]) =>
    fields.find((f) => {
      const parts = f.split('_');
      return parts.length === ws.length && parts.every((p, i) => sameWord(ws[i]!, p));
    });
  const whole = named(w);
  if (whole !== undefined) return `{{event.payload.${whole}}}`;
  // "the alert summary", "the alert's id": the event's own noun before the field.
  if (w.length > 1 && [...nouns].some((n) => sameWord(w[0]!, n))) {
    const rest = w.slice(1);
    const field = named(rest);
    if (field !== undefined) return `{{event.payload.${field}}}`;
    if (rest.length === 1 && ID_WORDS.has(rest[0]!)) return '{{event.subject}}';
  }
  if (w.length === 1 && w[0] === 'id' && words.length > 1 && !fields.includes('id'))
    return '{{event.subject}}';
  return undefined;
}

/**
 * Whether the words naming arguments `names` (the last one `word`) before a value say whom it goes to
 * rather than that the value is theirs: ids named without "id" ("ping the patient: <text>": not
 * patient_id), or arguments every tool lists the values of (`enum`) without `value` ("email the
 * manager 'x'" with manager in [accounts, general]).
 */
export function namesWhom(
  names: readonly string[],
  word: string,
  value: string | undefined,
  tools: readonly ToolDescriptor[],
): boolean {
  if (word !== 'id' && names.every((n) => n.endsWith('_id'))) return true;
  return value !== undefined && names.every((n) => listsNot(n, value, tools));
}

/** Whether every tool taking argument `name` lists its values (`enum`) and none lists `value`. */
function listsNot(name: string, value: string, tools: readonly ToolDescriptor[]): boolean {
  const schemas = tools.flatMap((t) => {
    const s = (t.args.properties as Record<string, { enum?: unknown[] }> | undefined)?.[name];
    return s === undefined ? [] : [s];
  });
  return schemas.length > 0 && schemas.every((s) => Array.isArray(s.enum) && !s.enum.includes(value));
}
