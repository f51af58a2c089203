/**
 * The words a tool is named and described with, for matching a request's words against it: its
 * name's words, the verbs of its description's first sentence, and every word of both (with their
 * lemmas, request-words.ts). Cached per descriptor. Pure.
 */
import type { ToolDescriptor } from '../../tools/tool-descriptor.ts';
import { wordsOf } from '../request-words.ts';

export interface ToolWords {
  readonly name: Set<string>;
  /** The lemmas of the verbs of the description's first sentence. */
  readonly first: Set<string>;
  readonly all: Set<string>;
}

const toolWordCache = new WeakMap<ToolDescriptor, ToolWords>();
export function toolWords(t: ToolDescriptor): ToolWords {
  let w = toolWordCache.get(t);
  if (!w) {
    // What follows a colon lists things, not what the tool does ("Reads an order: the customer's
    // id, name and email" does not email).
    const first = (/^(.*?[.!?])(\s|$)/.exec(t.description.trim())?.[1] ?? t.description).split(':')[0]!;
    // The verbs of the description's first sentence: its first word, and a word after "and", "or",
    // "then", "which", "that" or a comma ("Moves a ticket to the archive, which closes it").
    const verbs = [
      ...first
        .toLowerCase()
        .matchAll(/(?:^|,\s*(?:(?:and|or|then|which|that)\s+)?|\b(?:and|or|then|which|that)\s+)([a-z]+)/g),
    ].map((m) => m[1]!);
    w = {
      name: wordsOf(t.name),
      first: wordsOf(verbs.join(' ')),
      all: wordsOf(`${t.name} ${t.description}`),
    };
    toolWordCache.set(t, w);
  }
  return w;
}
