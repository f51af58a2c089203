/**
 * The shared context of the offline compiler's readers (one file per part of the grammar in this
 * folder; compile-request.ts composes them). It owns what every reader sees: the catalog, sorted so
 * that its order never matters; the request's text as it is consumed (`RequestText`: what a reader
 * reads is blanked for the next, positions kept); and where readers put what they could not decide
 * (`questions`) and what needs no answer (`notes`), in the order they read.
 *
 * A reader for a new phrasing takes a `RequestText` and the context, cuts out what it understood
 * and asks about the rest; it never throws and never guesses. Pure: no I/O, no clock.
 */
import type { StepSpec } from '../../spec/workflow-spec.ts';
import type { ToolDescriptor } from '../../tools/tool-descriptor.ts';
import type { DraftCatalog, DraftQuestion, EventShape } from '../compiled-request.ts';
import { vocabularyOf, wordsOf } from '../request-words.ts';

export interface RequestContext {
  /** The catalog's tools (core tools left out), by name. */
  readonly tools: readonly ToolDescriptor[];
  /** The catalog's events by type; undefined when the catalog knows none. */
  readonly events: readonly EventShape[] | undefined;
  readonly questions: DraftQuestion[];
  readonly notes: string[];
  /** Quoted text of the request, by the number of its `"q<n>"` placeholder. */
  readonly quotes: string[];
  /**
   * Quoted values an argument phrase named the argument of (read-arg-phrases.ts: "summary as the
   * title" -> the value "{{event.payload.summary}}" for `title`), by quote number.
   */
  readonly argQuotes: Map<number, ArgQuote>;
  /** Every reading that is not literal (an event chosen, text read as a quotation, a number in words). */
  readonly assumptions: string[];
  /** Yes/no arguments said in words ("keep a legal hold"), by name (read-yes-no.ts); `both`: said both ways. */
  readonly yesNo: Map<string, YesNoSaid | 'both'>;
  /**
   * Assumptions no sample checks (an argument read from what the event carries, fill-args.ts),
   * named in the coverage check's question when a word is left unread (read-coverage.ts).
   */
  readonly wholeReading: string[];
  /**
   * Words of the trigger's clause that only a field's name has ("with photos", has_photos), kept
   * for the coverage check to ask about when the draft reads that field nowhere (read-coverage.ts).
   */
  readonly fieldWords: { word: string; field: string; clause: string }[];
  /**
   * Words of the trigger's clause read as the catalog's, and as no test ("about a no show charge"),
   * kept for the coverage check: a draft that moves money or destroys must say them elsewhere.
   */
  readonly triggerWords: { word: string; clause: string }[];
  /** The tools the request bans ("don't email the holder"): their words are read (read-steps.ts). */
  readonly banned: string[];
}

export function contextFor(catalog: DraftCatalog): RequestContext {
  return {
    tools: [...catalog.tools].sort((a, b) => cmp(a.name, b.name)),
    events: catalog.events ? [...catalog.events].sort((a, b) => cmp(a.type, b.type)) : undefined,
    questions: [],
    notes: [],
    quotes: [],
    argQuotes: new Map(),
    assumptions: [],
    yesNo: new Map(),
    wholeReading: [],
    fieldWords: [],
    triggerWords: [],
    banned: [],
  };
}

/** The parts of a tool argument's JSON Schema the readers look at. */
export interface ArgSchema {
  readonly type?: unknown;
  readonly enum?: unknown;
  readonly pattern?: unknown;
  readonly description?: unknown;
  readonly format?: unknown;
}

/** A step of the draft with the tool it calls, and whether the request asked for an approval. */
export interface DraftStep {
  step: StepSpec;
  tool: ToolDescriptor;
  approval: boolean;
  /** The clause's words that said the step, as the readers left them (earlier-outputs.ts reads them). */
  said?: string;
}

/** What the request said of a yes/no argument (read-yes-no.ts). */
export interface YesNoSaid {
  readonly value: boolean;
  readonly said: string;
}

/** A value an argument phrase gave: the arguments it names, and the words that said it. */
export interface ArgQuote {
  readonly args: readonly string[];
  readonly said: string;
}

/** The request's text as the readers consume it: what one reads is blanked for the next. */
export interface RequestText {
  text: string;
}

/** Blanks what a reader matched, keeping every later position where it was. */
export function cutOut(buf: RequestText, m: { index: number; 0: string }): void {
  buf.text = buf.text.slice(0, m.index) + ' '.repeat(m[0].length) + buf.text.slice(m.index + m[0].length);
}

/**
 * A point to return `ctx` to when a reading is given up after it was tried on `ctx` itself:
 * questions, notes, assumptions and reasons to read every word it added are dropped. Returns
 * undefined, for a reader's `return back()`.
 */
export function rollbackPoint(ctx: RequestContext): () => undefined {
  const lists = [
    ctx.questions,
    ctx.notes,
    ctx.assumptions,
    ctx.wholeReading,
    ctx.fieldWords,
    ctx.triggerWords,
    ctx.banned,
  ] as unknown[][];
  const lengths = lists.map((l) => l.length);
  return () => {
    lists.forEach((l, i) => {
      l.length = lengths[i]!;
    });
    return undefined;
  };
}

/** Every word the catalog uses (tool names and descriptions, event types and payload fields), with lemmas. */
const vocabulary = new WeakMap<RequestContext, Set<string>>();

/**
 * A copy of `ctx` to try a reading on without saying it: its questions, notes, assumptions and
 * reasons to read every word are its own, the catalog (and its vocabulary) the same. A caller that
 * keeps the reading copies what it needs back.
 */
export function probing(ctx: RequestContext): RequestContext {
  const copy = {
    ...ctx,
    questions: [],
    notes: [],
    assumptions: [],
    wholeReading: [],
    fieldWords: [],
    triggerWords: [],
    banned: [],
  };
  const v = vocabulary.get(ctx);
  if (v) vocabulary.set(copy, v);
  return copy;
}
export function knownWords(ctx: RequestContext): Set<string> {
  let v = vocabulary.get(ctx);
  if (!v) {
    v = vocabularyOf(ctx.tools, ctx.events);
    vocabulary.set(ctx, v);
  }
  return v;
}

/** The values the sample events of `shapes` show, in lower case ("travel", "usd"). */
export function sampleValues(shapes: readonly EventShape[]): Set<string> {
  return new Set(
    shapes.flatMap((e) => Object.values(e.values ?? {}).flatMap((vs) => vs.map((v) => v.toLowerCase()))),
  );
}

/** The words of the tools' names and descriptions and of the event types: the catalog's, not its fields'. */
const catalogVocabulary = new WeakMap<readonly ToolDescriptor[], Set<string>>();
export function catalogWords(ctx: RequestContext): Set<string> {
  // (Kept per catalog: a probe shares its context's tools.)
  let v = catalogVocabulary.get(ctx.tools);
  if (!v) {
    v = wordsOf(
      [...ctx.tools.flatMap((t) => [t.name, t.description]), ...(ctx.events ?? []).map((e) => e.type)].join(
        ' ',
      ),
    );
    catalogVocabulary.set(ctx.tools, v);
  }
  return v;
}

/** Code-unit order, the same on every machine (never the locale's). */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `v` matched as written inside a pattern (its regular-expression characters escaped). */
export function asLiteral(v: string): string {
  return v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** "a, b or c", for the choices a question names. */
export function listOr(xs: readonly string[]): string {
  if (xs.length <= 1) return xs.join('');
  return `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`;
}

/**
 * A question's or an assumption's text with quoted text shown as the person wrote it, never as the
 * reader's `"q<n>"` placeholder.
 */
export function showQuotes(
  t: string,
  quotes: readonly string[],
  argQuotes: ReadonlyMap<number, ArgQuote> = new Map(),
): string {
  return t
    .replace(/"q([0-9]+)"/g, (all, n: string) =>
      argQuotes.has(Number(n))
        ? argQuotes.get(Number(n))!.said
        : quotes[Number(n)] === undefined
          ? all
          : `'${quotes[Number(n)]}'`,
    )
    .replace(/ {2,}/g, ' ');
}

/**
 * The questions in the order asked, each once (two readers may ask the same thing), with quoted
 * text shown as the person wrote it, never as the reader's `"q<n>"` placeholder.
 */
export function dedupeQuestions(
  qs: DraftQuestion[],
  quotes: readonly string[] = [],
  argQuotes: ReadonlyMap<number, ArgQuote> = new Map(),
): DraftQuestion[] {
  const seen = new Set<string>();
  const shown = (t: string) => showQuotes(t, quotes, argQuotes);
  return qs
    .map((q) => ({ ...q, question: shown(q.question) }))
    .filter((q) => {
      if (seen.has(q.question)) return false;
      seen.add(q.question);
      return true;
    });
}
