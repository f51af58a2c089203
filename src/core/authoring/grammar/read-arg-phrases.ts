/**
 * Argument phrases: what a tool argument should be, said in words around the action rather than
 * inside it. An event field for an argument ("use the alert id as the incident id", "summary as
 * the title", "w/ summary as title", "titled with the alert summary", "title is the alert's
 * summary", "put the resolution on it", "for its service"), text for an argument named before it
 * ("message 'search is unhappy'", "text 'We are on it'"), text and a field together ("message
 * 'Critical: ' followed by the summary" -> "Critical: {{event.payload.summary}}"), and a value a
 * tool's enum lists, said on its own ("..., sev2, ...", "status monitoring").
 *
 * Read once the trigger is known, over any catalog: the field words must name a payload field of
 * the trigger event (tolerant of "the", "its", the event's own noun: "the alert's summary"), or its
 * id ("the alert id": the event's subject), and the argument words an argument of one of the
 * catalog's tools ("incident" for incident_id). Each phrase read becomes a quoted value in the text
 * (`"q<n>"`), its text the value (a template for a field) and its target the arguments it names
 * (`ctx.argQuotes`): fill-args.ts gives it to that argument of the step it is said with, or, said
 * on its own, of the steps whose tool takes it. Words none of the patterns read stay for the other
 * readers, and are asked about as before.
 */
import type { EventShape } from '../compiled-request.ts';
import { ACTION_GROUPS, groupOf, lemmas } from '../request-words.ts';
import { DETERMINERS, fieldValue, namesWhom, sameWord, type Token, tokenize } from './arg-phrase-words.ts';
import { classValues } from './class-fields.ts';
import { markSpan } from './mark-span.ts';
import { durationSpans, timedArgs } from './read-durations.ts';
import { smsTool } from './read-message-text.ts';
import type { RequestContext, RequestText } from './request-context.ts';
import { toolWords } from './tool-words.ts';
import { isEventWord } from './trigger-words.ts';

/** Words that make "<arg> is <value>" a test rather than a value ("if the title is ..."). */
const TEST_WORDS = new Set([
  'if',
  'unless',
  'when',
  'whenever',
  'where',
  'whether',
  'only',
  'except',
  'not',
  'never',
]);
/** Verbs whose object is what is sent: "post the title", "message the summary". */
const SENDS = new Set(['post', 'message', 'msg', 'send', 'share', 'announce', 'publish', 'dm', 'ping']);
/** "<text> followed by <field>": the parts of one value, in order. */
const JOINS: readonly (readonly string[])[] = [
  ['followed', 'by'],
  ['and', 'then'],
  ['then'],
  ['plus'],
  ['+'],
];

export function readArgPhrases(buf: RequestText, event: string | undefined, ctx: RequestContext): void {
  const shapes = (ctx.events ?? []).filter((e) => event === undefined || e.type === event);
  const holds = (sh: EventShape, word: string) =>
    sh.payload.some((f) =>
      [...(sh.values?.[f] ?? []), ...classValues(f, sh, ctx)].some((x) => x.toLowerCase() === word),
    );
  // Every argument name of the catalog's tools, with the values its enums list (lowercased -> as written).
  const args = new Map<string, { enums: Map<string, string> }>();
  for (const tool of ctx.tools) {
    const props = (tool.args.properties ?? {}) as Record<string, { enum?: unknown }>;
    for (const [name, s] of Object.entries(props)) {
      const a = args.get(name) ?? { enums: new Map<string, string>() };
      if (Array.isArray(s.enum))
        for (const v of s.enum) if (typeof v === 'string') a.enums.set(v.toLowerCase(), v);
      args.set(name, a);
    }
  }
  // An argument's words name it ("incident id", "the title"), or with "id" left off ("the incident"),
  // or with the noun a form gives it ("subject line", "title field").
  const argNamed = (words: readonly string[]): string[] => {
    let w = [...words];
    while (w.length > 0 && DETERMINERS.has(w[0]!)) w = w.slice(1);
    if (w.length === 0) return [];
    if (w.length > 1 && (w.at(-1) === 'line' || w.at(-1) === 'field')) {
      const named = argNamed(w.slice(0, -1));
      if (named.length > 0) return named;
    }
    return [...args.keys()].filter((name) => {
      const parts = name.split('_');
      const match = (ps: readonly string[]) =>
        ps.length === w.length && ps.every((p, i) => sameWord(w[i]!, p));
      return match(parts) || (parts[parts.length - 1] === 'id' && match(parts.slice(0, -1)));
    });
  };
  // A word that names an action some tool does ("message", "text" by SMS): never an argument's name.
  const isAction = (word: string) => {
    const g = groupOf(ACTION_GROUPS, word);
    if (word === 'text' && smsTool(word, ctx) !== undefined) return true;
    return ctx.tools.some((t) =>
      (g ?? [word]).some((x) => toolWords(t).name.has(x) || toolWords(t).first.has(x)),
    );
  };

  // Arguments every tool takes as free text (a string with no list, form or format).
  const freeText = new Set(
    [...args.keys()].filter((name) =>
      ctx.tools.every((t) => {
        const p = ((t.args.properties ?? {}) as Record<string, Record<string, unknown>>)[name];
        return p === undefined || (p.type === 'string' && !p.enum && !p.pattern && !p.format);
      }),
    ),
  );
  const namesToolWith = (verb: string, field: string) =>
    ctx.tools.some((t) => {
      const name = toolWords(t).name;
      return name.has(verb) && field.split('_').every((p) => lemmas(p).some((l) => name.has(l)));
    });

  let toks = tokenize(buf.text);
  const put = (from: number, to: number, value: string, target: readonly string[]) => {
    const digits = String(ctx.quotes.length);
    // The number zero-padded to the span's length: no blank inside a clause (a blank is where a
    // reader cut a bound), and the text keeps its length (mark-span.ts).
    const span = markSpan(buf.text, toks[from]!.at, toks[to]!.end, digits.length + 3);
    if (span === undefined) return false;
    const [at, end] = span;
    const mark = `"q${digits.padStart(end - at - 3, '0')}"`;
    ctx.quotes.push(value);
    ctx.argQuotes.set(ctx.quotes.length - 1, {
      args: target,
      said: buf.text.slice(at, end).replace(/"q([0-9]+)"/g, (all, n: string) => {
        const q = ctx.argQuotes.get(Number(n));
        return q ? q.said : ctx.quotes[Number(n)] === undefined ? all : `'${ctx.quotes[Number(n)]}'`;
      }),
    });
    buf.text = buf.text.slice(0, at) + mark + buf.text.slice(end);
    toks = tokenize(buf.text);
    return true;
  };
  const quoteText = (tok: Token) => ctx.quotes[Number(tok.t.slice(2, -1))] ?? '';
  const isWord = (i: number) => toks[i]?.kind === 'word';

  /** The longest run of words from `i` (forward) naming a field: [value, last index]. */
  const fieldFrom = (i: number): [string, number] | undefined => {
    for (let n = 5; n >= 1; n--) {
      const span = toks.slice(i, i + n);
      if (span.length < n || span.some((t) => t.kind !== 'word')) continue;
      const v = fieldValue(
        span.map((t) => t.t),
        shapes,
      );
      if (v !== undefined) return [v, i + n - 1];
    }
    return undefined;
  };
  /** A value from `i`: quoted text and fields joined by "followed by" / "then" / "+". */
  const valueFrom = (
    i: number,
  ): { text: string; end: number; fields: number; quotes: number } | undefined => {
    let text = '';
    let end = i - 1;
    let fields = 0;
    let quotes = 0;
    for (let k = i; ; ) {
      const tok = toks[k];
      let part: [string, number] | undefined;
      if (tok?.kind === 'quote') {
        part = [quoteText(tok), k];
        if (ctx.argQuotes.has(Number(tok.t.slice(2, -1)))) return undefined;
        quotes++;
      } else {
        part = fieldFrom(k);
        if (part) fields++;
      }
      if (!part) break;
      text += part[0];
      end = part[1];
      const join = JOINS.find((j) => j.every((w, x) => toks[end + 1 + x]?.t === w));
      if (!join) break;
      const next = end + 1 + join.length;
      const after = toks[next]?.kind === 'quote' || fieldFrom(next) !== undefined;
      if (!after) break;
      k = next;
    }
    return end >= i ? { text, end, fields, quotes } : undefined;
  };
  /** The argument named by the words ending at `j` (backward, at most 3 words): [names, first index]. */
  const argBefore = (j: number): [string[], number] | undefined => {
    for (let n = 3; n >= 1; n--) {
      const span = toks.slice(Math.max(0, j - n + 1), j + 1);
      if (span.length < n || span.some((t) => t.kind !== 'word')) continue;
      const names = argNamed(span.map((t) => t.t));
      if (names.length > 0) {
        let from = j - n + 1;
        while (from > 0 && DETERMINERS.has(toks[from - 1]!.t)) from--;
        return [names, from];
      }
    }
    return undefined;
  };
  const argAfter = (i: number): [string[], number] | undefined => {
    let from = i;
    while (DETERMINERS.has(toks[from]?.t ?? '')) from++;
    for (let n = 3; n >= 1; n--) {
      const span = toks.slice(from, from + n);
      if (span.length < n || span.some((t) => t.kind !== 'word')) continue;
      const names = argNamed(span.map((t) => t.t));
      if (names.length > 0) return [names, from + n - 1];
    }
    return undefined;
  };
  const isTest = (i: number) => {
    for (let k = i - 1; k >= Math.max(0, i - 3); k--) {
      if (toks[k]!.kind !== 'word') return false;
      if (TEST_WORDS.has(toks[k]!.t)) return true;
    }
    return false;
  };

  // "<field> as <arg>", "use the alert id as the incident id", "w/ summary as title".
  for (let i = 1; i < toks.length; i++) {
    if (toks[i]!.t !== 'as' && toks[i]!.t !== 'for') continue;
    const arg = argAfter(i + 1);
    if (!arg) continue;
    // "for" only after "use": "use the branch for the title" (never "a ticket for the project").
    const lead = (k: number) =>
      ['use', 'using', 'with', 'take', 'pass', 'set', 'put'].includes(toks[k]?.t ?? '');
    let value: { text: string; from: number } | undefined;
    if (toks[i - 1]!.kind === 'quote' && !ctx.argQuotes.has(Number(toks[i - 1]!.t.slice(2, -1))))
      value = { text: quoteText(toks[i - 1]!), from: i - 1 };
    else
      for (let n = 5; n >= 1 && !value; n--) {
        const span = toks.slice(Math.max(0, i - n), i);
        if (span.length < n || span.some((t) => t.kind !== 'word')) continue;
        const v = fieldValue(
          span.map((t) => t.t),
          shapes,
        );
        if (v !== undefined) value = { text: v, from: i - n };
      }
    if (!value) continue;
    let from = value.from;
    if (lead(from - 1)) from--;
    else if (toks[i]!.t === 'for') continue;
    if (put(from, arg[1], value.text, arg[0])) i = from;
  }
  // "set the body to the log url", "fill the title with the summary", "change the title to ...".
  for (let i = 0; i < toks.length; i++) {
    if (!['set', 'fill', 'change', 'make'].includes(toks[i]!.t)) continue;
    const arg = argAfter(i + 1);
    if (!arg || !['to', 'with', 'as', '='].includes(toks[arg[1] + 1]?.t ?? '')) continue;
    const value = valueFrom(arg[1] + 2);
    if (!value) continue;
    put(i, value.end, value.text, arg[0]);
  }
  // "<arg> is <value>", "title = summary", "incident id is the alert's id", and "title from the
  // summary" (from a field only).
  for (let i = 1; i < toks.length; i++) {
    const two = toks[i]!.t === 'should' || toks[i]!.t === 'will' || toks[i]!.t === 'set';
    const from = toks[i]!.t === 'from';
    const connector =
      from ||
      ['is', '=', ':', 'equals', 'being'].includes(toks[i]!.t) ||
      (two && ['be', 'to'].includes(toks[i + 1]?.t ?? ''));
    if (!connector) continue;
    const arg = argBefore(i - 1);
    if (!arg || isTest(arg[1])) continue;
    const value = valueFrom(i + (two ? 2 : 1));
    if (!value || (from && value.fields === 0)) continue;
    // ("invoices from vendor ...": the events' own noun names which events, never invoice_id; and
    // only a text takes a field so: "quantity from the justification" is asked about.)
    if (from && toks.slice(arg[1], i).some((t) => isEventWord(t.t, ctx))) continue;
    if (from && !arg[0].every((n) => freeText.has(n))) continue;
    if (put(arg[1], value.end, value.text, arg[0])) i = arg[1];
  }
  // "titled with the alert summary", "labelled with the reason": a verb made of the argument's name.
  for (let i = 0; i < toks.length; i++) {
    const w = toks[i]!.t;
    if (!isWord(i) || !/(?:ed|led)$/.test(w)) continue;
    const names = [...args.keys()].filter((n) => n !== w && lemmas(w).includes(n));
    if (names.length === 0) continue;
    const skip = ['with', 'as', 'from', 'by', 'after', 'to'].includes(toks[i + 1]?.t ?? '') ? 1 : 0;
    const value = valueFrom(i + 1 + skip);
    if (!value || value.fields === 0) continue;
    put(i, value.end, value.text, names);
  }
  // "for 30 days", "a 4-hour permit": a duration for the arguments that count time, last first.
  const timed = timedArgs(ctx.tools);
  if (timed) {
    const words = toks.map((t) => (t.kind === 'word' ? t.t : '\u0000'));
    for (const d of durationSpans(words, timed.unit).reverse()) {
      // "48h to respond": the time to answer in, never a reply of its own.
      const answer = words[d.to + 1] === 'to' && /^(?:respond|reply|answer)$/.test(words[d.to + 2] ?? '');
      // "wait a day first", "after waiting two days": a time to wait, never how long access lasts.
      const wait = /^(?:wait|waiting|waits|delay|delaying|sleep|pause|hold)$/.test(words[d.from - 1] ?? '');
      if (!isTest(d.from) && !wait) put(d.from, answer ? d.to + 2 : d.to, String(d.value), timed.names);
    }
  }
  // "message 'Critical: ' followed by the summary", "message 'search is unhappy'", "title it
  // '[warn] <service>'": an argument's name just before its value.
  for (let i = 0; i < toks.length; i++) {
    const arg = argAfter(i);
    if (!arg) continue;
    const at = arg[1] + (['it', 'them'].includes(toks[arg[1] + 1]?.t ?? '') ? 2 : 1);
    if (at >= toks.length || toks[at]!.kind !== 'quote') continue;
    if (isTest(i) || (arg[1] === i && isAction(toks[i]!.t))) continue;
    const value = valueFrom(at);
    // "ping the patient: <text>", "email the manager 'x'": whom the words go to (arg-phrase-words.ts).
    const person = namesWhom(arg[0], toks[arg[1]]!.t, value?.text, ctx.tools);
    if (value && !(person && value.fields === 0)) put(i, value.end, value.text, arg[0]);
  }
  // "put the resolution on it", "include the reason", "for the service", "for the alert's service":
  // a field said for the argument of the same name.
  for (let i = 0; i < toks.length; i++) {
    const w = toks[i]!.t;
    const lead = ['put', 'add', 'include', 'attach', 'copy', 'pass', 'record'].includes(w);
    if (!lead && w !== 'for') continue;
    const f = fieldFrom(i + 1);
    if (!f) continue;
    const field = /^\{\{event\.payload\.([a-z0-9_]+)\}\}$/.exec(f[0])?.[1];
    // "add seats" with add_seats: the verb and the field name a tool together, an action.
    if (lead && field !== undefined && namesToolWith(w, field)) continue;
    const named = lead && ['in', 'into', 'as', 'to'].includes(toks[f[1] + 1]?.t ?? '') && argAfter(f[1] + 2);
    if (!named && (field === undefined || !args.has(field))) continue;
    let end = f[1];
    const next = toks[end + 1];
    // "put the log url in the body": the argument named after it.
    const into = lead && ['in', 'into', 'as', 'to'].includes(next?.t ?? '') ? argAfter(end + 2) : undefined;
    if (into) {
      put(i, into[1], f[0], into[0]);
      continue;
    }
    if (lead && ['on', 'in', 'to', 'onto', 'into', 'with'].includes(next?.t ?? '')) {
      end++;
      while (DETERMINERS.has(toks[end + 1]?.t ?? '')) end++;
      if (isWord(end + 1)) end++;
    } else if (
      next !== undefined &&
      next.kind === 'word' &&
      !['and', 'then', 'with', 'titled', 'named'].includes(next.t)
    )
      continue;
    put(i, end, f[0], [field!]);
  }
  // "page the primary with the summary", "reply with its resolution": a field said with the action,
  // for no argument by name. For an argument of its own name where one is ("with the reason"), else
  // quoted text of the clause (fill-args.ts gives it to the one text argument the event does not
  // supply). Never at the start of a clause, where it would belong to no action.
  for (let i = 1; i < toks.length; i++) {
    if (!['with', 'including', 'containing'].includes(toks[i]!.t) || toks[i - 1]!.kind === 'punct') continue;
    const f = fieldFrom(i + 1);
    if (!f || toks[f[1] + 1]?.t === 'as' || isWord(f[1] + 1)) continue;
    const field = /^\{\{event\.payload\.([a-z0-9_]+)\}\}$/.exec(f[0])?.[1];
    if (field !== undefined && args.has(field)) put(i, f[1], f[0], [field]);
    else put(i, f[1], f[0], []);
  }
  // "post the ticket's title in #triage", "post in #desk 'Urgent: ' followed by the title": a field
  // (or text joined to one) said as what a post or message carries, for no argument by name
  // (fill-args.ts gives it to the tool's one free text argument). Past a channel said first.
  for (let i = 0; i < toks.length; i++) {
    if (!SENDS.has(toks[i]!.t)) continue;
    let k = i + 1;
    const target = (tok: Token | undefined) =>
      tok?.kind === 'quote' && (ctx.argQuotes.get(Number(tok.t.slice(2, -1)))?.args.length ?? 0) > 0;
    if (['in', 'to', 'on', 'into'].includes(toks[k]?.t ?? '') && target(toks[k + 1])) k += 2;
    while (DETERMINERS.has(toks[k]?.t ?? '') || toks[k]?.t === 'new') k++;
    const value = valueFrom(k);
    if (!value || value.fields === 0) continue;
    // What follows is a channel, or nothing of this clause: "message the approver 'x'" names who.
    const next = toks[value.end + 1];
    const into = ['in', 'to', 'on', 'into'].includes(next?.t ?? '') && target(toks[value.end + 2]);
    if (
      !into &&
      next !== undefined &&
      (next.kind !== 'punct' || next.t === '"') &&
      !['and', 'then'].includes(next.t)
    )
      continue;
    put(k, value.end, value.text, []);
  }
  // ", sev2,", "status monitoring": a value an argument's enum lists, said on its own.
  for (let i = 0; i < toks.length; i++) {
    const before = toks[i - 1];
    if (before !== undefined && before.kind === 'word' && before.t !== 'and') continue;
    const arg = argAfter(i);
    const at = arg && !DETERMINERS.has(toks[i]!.t) ? arg[1] + 1 : i;
    const v = toks[at];
    if (v?.kind !== 'word') continue;
    const after = toks[at + 1];
    if (after !== undefined && after.kind === 'word' && after.t !== 'and') continue;
    // ("kayak/paddle:": values joined with "/" say which ones together, as "or" does.)
    if (before?.t === '/' || after?.t === '/') continue;
    const hits = [...args.entries()].filter(
      ([n, a]) => a.enums.has(v.t) && (at === i || arg![0].includes(n)),
    );
    if (hits.length === 0 || isAction(v.t)) continue;
    // A value the event holds ("illegal -> remove it", "spam: hide it") says which events: it is
    // left for the test readers, never only the step's argument (which would act on every event).
    if (at === i && shapes.some((sh) => holds(sh, v.t))) continue;
    put(
      i,
      at,
      hits[0]![1].enums.get(v.t)!,
      hits.map(([n]) => n),
    );
  }
}
