/**
 * Field tests said in words, as trigger conditions over the event's payload fields: "unless the
 * reason is fraud" (`payload.reason != "fraud"`), "only if the channel is email", "tickets that came
 * in by chat" (the event's one channel/source field), and a value a tool's `enum` lists for an
 * argument named like one of the event's fields: "travel expenses", "submitted for alcohol"
 * (`payload.category == "travel"`), negated by "never" / "not" / "except" just before it; "only for
 * warnings", "except urgent ones", "unless it's just a warning". The words of the trigger clause the
 * trigger reader could not read as its event (`Qualifier`: "critical" alerts, "thru chat") become
 * tests here too (`readQualifiers`); which field holds a word is `fieldForValue`'s to say. Read once
 * the trigger is known; each phrase read is cut out of the text, so it is not taken for an action.
 * A word no field holds is a question, never dropped.
 */
import type { EventShape } from '../compiled-request.ts';
import { forbidsUnless } from '../negated-actions.ts';
import { isActionVerb, lemmas } from '../request-words.ts';
import { flagQualifierTest, flagValueOf, readFlags, turnedFlags } from './flag-fields.ts';
import { enumValues, noteClass, readListedValues } from './listed-values.ts';
import { pairedValue } from './paired-values.ts';
import { isPartyWord } from './party-words.ts';
import { fieldByPattern } from './patterned-values.ts';
import type { Qualifier } from './qualifier.ts';
import { noteFieldWord } from './read-coverage.ts';
import { readNamedValues } from './read-named-values.ts';
import { cutOut, knownWords, type RequestContext, type RequestText } from './request-context.ts';
import { shortFormOf } from './value-short-forms.ts';
import { HOW_MANY, isChannelWord, severityOf } from './value-words.ts';
import { channelField, readValuesByNoun, readWayIn } from './values-by-noun.ts';

/** "... or the plan is pro": a second "<field> is <value>" said right after a first, as its alternative. */
const OR_IS =
  /^\s*,?\s*or (?:if |when )?(?:the |its |their )?([a-z][a-z_]*(?: [a-z][a-z_]*)?) (?:is|equals) (?:not )?(?:a |an |the )?([a-z0-9][a-z0-9_-]*(?: (?!and\b|then\b|or\b|but\b)[a-z0-9][a-z0-9_-]*){0,3})(?=\s*(?:$|[,.;!?:]|\band\b|\bthen\b|\bor\b|\bbut\b))/;

/**
 * Words a comparison starts with, never a value ("under the deductible", "over a year old"), and
 * words that say whether a field has a value at all ("if priority is not set"): no value either.
 */
const NO_VALUE =
  /^(?:under|over|above|below|less|more|fewer|greater|higher|lower|bigger|smaller|within|before|after|between|beyond|older|newer|younger)\b|^(?:set|unset|empty|blank|missing|given|known|filled(?: in)?|present|provided|specified|null)$/;

const NEGATIONS = /^(?:unless|except(?: when| if)?|but not(?: when| if)?|not (?:when|if))$/;

export function readFieldTests(
  buf: RequestText,
  raw: string,
  event: string | undefined,
  ctx: RequestContext,
): string[] {
  const shape = ctx.events?.find((e) => e.type === event);
  if (!shape) return [];
  // "reason 'wrong size' ->", "reason = never arrived:": a field with its value (read-named-values.ts).
  const out: string[] = readNamedValues(buf, raw, shape, ctx);
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
  // The test "<field> is <value>" says, or undefined; `at` is where the value starts in the text.
  const test = (field: string, value: string, negated: boolean, at: number): string | undefined => {
    // "if the invoice is USD": the events' own noun, with a value one field holds.
    if (!fieldNamed(field) && isEventNoun(field, shape) && !value.includes(' ')) {
      const hit = fieldForValue(value, shape, ctx);
      return hit && `payload.${hit.field} ${negated ? '!=' : '=='} ${JSON.stringify(hit.value)}`;
    }
    const named = fieldNamed(field);
    if (!named) return undefined;
    // "if the reason is never arrived refund it": the value ends before an action, never takes it in.
    if (value.split(' ').slice(1).some(isActionVerb)) return undefined;
    // "if the claim is under the deductible": a comparison or a place, no value of `claim_type`;
    // "unless the customer is on no loyalty tier": words, no id of `customer_id`.
    if (NO_VALUE.test(value) || (/_id$/.test(named) && value.includes(' '))) return undefined;
    // "unless identity is verified": a yes/no field said by its own word, or a yes or a no, is true or false.
    const yes = shape.flags?.includes(named) ? flagValueOf(value, named) : undefined;
    if (yes !== undefined) {
      ctx.assumptions.push(
        `"${value}" is read as the ${shape.type} event's ${named} being ${yes !== negated}.`,
      );
      return `payload.${named} == ${yes !== negated}`;
    }
    // The value as written: "Acme", not "acme".
    return `payload.${named} ${negated ? '!=' : '=='} ${JSON.stringify(raw.slice(at, at + value.length))}`;
  };
  for (const m of [...buf.text.matchAll(is)]) {
    // (A test an earlier one's "or" took: "if priority is urgent or if plan is enterprise".)
    if (buf.text.slice(m.index, m.index + m[0].length) !== m[0]) continue;
    // ("don't build the export unless identity is verified": only when it is; "don't remove them
    // if the post is spam": the others.)
    const forbidden = forbidsUnless(buf.text.slice(0, m.index));
    const turned =
      m[1] === 'unless'
        ? !forbidden
        : NEGATIONS.test(m[1]!) || ((m[1] === 'if' || m[1] === 'when') && forbidden);
    const negated = turned !== / is not /.test(m[0]);
    const first = test(m[2]!, m[3]!, negated, m.index + m[0].length - m[3]!.length);
    if (first === undefined) continue;
    cutOut(buf, m);
    // "if the priority is urgent or the plan is pro": either test, each as said ("if the reason is
    // not fraud or the tier is gold"); "unless ... or ...": neither.
    const after = m.index + m[0].length;
    const or = OR_IS.exec(buf.text.slice(after));
    const second =
      or && test(or[1]!, or[2]!, turned !== / is not /.test(or[0]), after + or[0].length - or[2]!.length);
    if (!or || !second) {
      out.push(first);
      continue;
    }
    cutOut(buf, { index: after, 0: or[0] });
    out.push(...(turned ? [first, second] : [`(${first} or ${second})`]));
    // ("gold or damaged and USD": "(gold or damaged) and USD", or "gold, or damaged and USD"? Asked.)
    const rest = buf.text.slice(after + or[0].length);
    if (!turned && /^\s*,?\s*(?:and|but)\b/.test(rest))
      ctx.questions.push({
        about: 'triggers.when',
        question: `"${raw.slice(m.index, after + or[0].length).trim()}" is followed by "and": should the test after it hold for both, or only with the second? Say it in two sentences ("if ... or ..., and only if ...").`,
      });
  }
  // "unless it came in by chat", "tickets opened by email", "email tickets", "from new sellers" (values-by-noun.ts).
  const channel = channelField(shape);
  const ways =
    channel === undefined ? [] : [...(shape.values?.[channel] ?? []), ...enumValues(channel, shape, ctx)];
  out.push(...readWayIn(buf, shape, ways, ctx));
  out.push(...readValuesByNoun(buf, shape, ways));
  out.push(...readListedValues(buf, shape, event!, ctx));
  // A value the event's samples show for a field, said before the event's noun ("hide spam posts",
  // "delete illegal posts"): which ones. Never only an argument's value: the words say which events.
  const noun = event!.split('.')[0]!;
  for (const [field, vs] of Object.entries(shape.values ?? {}))
    for (const v of vs) {
      if (!/^[a-z][a-z0-9-]*$/i.test(v)) continue;
      const re = new RegExp(String.raw`\b${v.toLowerCase()}(?= (?:${noun}s?|ones)\b)`, 'g');
      for (const m of [...buf.text.matchAll(re)]) {
        out.push(`payload.${field} == ${JSON.stringify(v)}`);
        cutOut(buf, m as RegExpExecArray);
      }
    }
  // "from V-100", "billed against PO-5002", "for carrier C-7", "V-100 invoices", "not from V-100",
  // "except anything by author U-42":
  // an identifier of the form the tools give one field (patterned-values.ts). Said elsewhere it is
  // left for an argument or the question.
  const id = '([a-z0-9][a-z0-9_-]*[0-9][a-z0-9_-]*)';
  // "V-100 (our cleaning contractor, ...)": words that only say who it is, read as that, Assumed.
  const about = String.raw`(?:\s*\((?:our|their|the|a|an) ((?:(?!only\b|not\b|never\b|except\b|unless\b|if\b|when\b)[a-z]+\s*){1,3})(?=[,)]))?`;
  const byForm = new RegExp(
    String.raw`\b(?:(not|never|except|but not|excluding|other than) (?:(?:anything|any|the ones|ones|those|${noun}s?) )?)?(?:(?:billed|charged|raised|issued|invoiced|sent|coming) )?(?:from|against|for|on|by|under|with) (?:the )?(?:([a-z]+) )?${id}(?![a-z0-9_-])${about}|\b${id} (?=(?:${noun}s?|ones)\b)`,
    'g',
  );
  for (const m of [...buf.text.matchAll(byForm)]) {
    const word = m[3] ?? m[5]!;
    const hit = fieldByPattern(word, shape, ctx);
    // A word between the preposition and the id names its field ("from vendor V-100"), or is none.
    if (!hit || (m[2] !== undefined && !hit.field.split('_').some((p) => lemmas(m[2]!).includes(p))))
      continue;
    // ("not those from V-31 unless it's cleaning": an exception to the exception is asked about.)
    if (m[1] && /^\s*,?\s*(?:unless|except|but|if|only)\b/.test(buf.text.slice(m.index + m[0].length)))
      continue;
    out.push(`payload.${hit.field} ${m[1] ? '!=' : '=='} ${JSON.stringify(hit.value)}`);
    if (m[4] !== undefined)
      ctx.assumptions.push(`"${m[4].trim()}" is read as who ${hit.value} is, not a test.`);
    cutOut(buf, m as RegExpExecArray);
  }
  // "only for warnings", "for travel expenses only", "unless it's just a warning", "if it's critical":
  // a word a field of the event holds (fieldForValue). A word none holds is left for the question.
  const restriction =
    /\b(?:only (?:for|on|from|in|with|about) (?:the |a |an )?([a-z][a-z0-9-]*)(?: ([a-z][a-z0-9-]*))?(?: only)?|(?:for|on|about) (?:the )?([a-z][a-z0-9-]*)(?: ([a-z][a-z0-9-]*))? only)\b/g;
  for (const m of [...buf.text.matchAll(restriction)]) {
    const [w1, w2] = m[1] ? [m[1], m[2]] : [m[3]!, m[4]];
    // "only for urgent ones": "ones" stands for the event's noun.
    const noun = w2 !== undefined && (isEventNoun(w2, shape) || w2 === 'ones');
    if (w2 !== undefined && !noun) continue;
    const hit = fieldForValue(w1, shape, ctx, { modifier: noun });
    if (!hit) continue;
    out.push(`payload.${hit.field} == ${JSON.stringify(hit.value)}`);
    cutOut(buf, m as RegExpExecArray);
  }
  // "except urgent ones", "but not warnings", "other than auth": a value a field holds, turned around.
  const except =
    /\b(?:except(?: for)?|excluding|but not|other than|apart from) (?:the |a |an )?([a-z][a-z0-9-]*)(?: ([a-z][a-z0-9-]*))?\b/g;
  for (const m of [...buf.text.matchAll(except)]) {
    const noun = m[2] !== undefined && (isEventNoun(m[2], shape) || m[2] === 'ones');
    const hit = fieldForValue(m[1]!, shape, ctx, { modifier: noun, enums: true });
    if (!hit) continue;
    out.push(`payload.${hit.field} != ${JSON.stringify(hit.value)}`);
    cutOut(buf, {
      index: m.index,
      0: noun || m[2] === undefined ? m[0] : m[0].slice(0, m[0].length - m[2].length - 1),
    });
  }
  // "verified only", "if they're verified", "unverified customers" (flag-fields.ts).
  out.push(...readFlags(buf, raw, shape, ctx));
  const itIs =
    /\b(unless|except (?:if|when)|but not (?:if|when)|if|only if|when|only when|and) (?:it's|its|it is|they're|theyre|they are|it {3}|the [a-z]+ is|the [a-z]+ {3}) (?:just |only |a |an )*([a-z][a-z0-9-]*)(?: ones?)?(?=\s*(?:$|[,.;!?:)]|\band\b|\bthen\b))/g;
  for (const m of [...buf.text.matchAll(itIs)]) {
    // A tool's value ("unless it's a sev3": an incident's severity) is not said of the event here.
    const hit = fieldForValue(m[2]!, shape, ctx, { enums: false });
    if (!hit) continue;
    out.push(`payload.${hit.field} ${NEGATIONS.test(m[1]!) ? '!=' : '=='} ${JSON.stringify(hit.value)}`);
    cutOut(buf, m as RegExpExecArray);
  }
  return out;
}

/**
 * The trigger's `when` tests for the words of its clause the trigger reader could not read as the
 * event: each a value a field of the event holds. A word none holds is a question, never dropped.
 */
export function readQualifiers(
  qs: readonly Qualifier[],
  event: string | undefined,
  ctx: RequestContext,
): string[] {
  const shape = ctx.events?.find((e) => e.type === event);
  if (!shape || qs.length === 0) return [];
  const out: string[] = [];
  const unread: Qualifier[] = [];
  const { turned, sayNo } = turnedFlags(qs, shape);
  const paired = new Set<Qualifier>();
  const tested = new Map<Qualifier, { field: string; test: string }>();
  for (const [i, q] of qs.entries()) {
    if (sayNo.has(q) || paired.has(q)) continue;
    // "verified ones", "with no police report", "without autopay": a yes/no field (flag-fields.ts).
    const flag = flagQualifierTest(q, turned.has(q), shape, ctx);
    if (flag !== null) {
      if (flag === undefined) unread.push(q);
      else out.push(flag);
      continue;
    }
    const next = q.then !== undefined && qs[i + 1]?.word === q.then ? qs[i + 1] : undefined;
    const pair = next ? pairedValue(q, next, shape, ctx, fieldForValue) : undefined;
    if (pair) paired.add(next!);
    const found = pair ?? fieldForValue(q.word, shape, ctx, q);
    // ("filed in the US" read as filed_via "us": a country is a test only of a field whose samples show it.)
    const hit =
      found && q.word === 'us' && !shape.values?.[found.field]?.some((v) => v.toLowerCase() === 'us')
        ? undefined
        : found;
    if (hit) {
      out.push(`payload.${hit.field} ${q.negated ? '!=' : '=='} ${JSON.stringify(hit.value)}`);
      if (!q.negated) tested.set(q, { field: hit.field, test: out[out.length - 1]! });
    } else if (!q.known || q.negated || found) unread.push(q);
    else {
      noteFieldWord(q.word, q.clause, shape, ctx);
      ctx.triggerWords.push({ word: q.word, clause: q.clause });
    }
  }
  if (unread.length > 0)
    ctx.questions.push({
      about: 'triggers.when',
      question: `I could not read "${unread.map((q) => q.word).join(' ')}" in "${unread[0]!.clause}": no event field or tool of the catalog says it. Which field of the ${shape.type} event should the trigger test, and against what?`,
    });
  return [...new Set(eitherOr(qs, tested, out))];
}

/**
 * "urgent or enterprise", "urgent tickets or pro ones": the tests of two fields said with "or"
 * between them (and no "and" or mark) are alternatives, not both required. (Two values of one
 * field are alternatives already: alternative-tests.ts.)
 */
function eitherOr(
  qs: readonly Qualifier[],
  tested: ReadonlyMap<Qualifier, { field: string; test: string }>,
  out: readonly string[],
): string[] {
  let tests = [...out];
  // (Each with the next that has a test: "the priority is urgent or the plan is pro" names fields between.)
  const withTests = qs.filter((q) => tested.has(q));
  for (const [i, a] of withTests.entries()) {
    const b = withTests[i + 1];
    const ta = tested.get(a);
    const tb = b && tested.get(b);
    if (!ta || !tb || ta.field === tb.field || !tests.includes(ta.test) || !tests.includes(tb.test)) continue;
    const clause = a.clause.toLowerCase();
    const from = clause.search(new RegExp(String.raw`\b${a.word}\b`));
    const to =
      from < 0 ? -1 : clause.slice(from + a.word.length).search(new RegExp(String.raw`\b${b!.word}\b`));
    if (to < 0) continue;
    const between = clause.slice(from + a.word.length, from + a.word.length + to);
    if (!/\bor\b/.test(between) || /\b(?:and|but|nor|not|either)\b|[,;:.&+]/.test(between)) continue;
    tests = tests.filter((t) => t !== ta.test && t !== tb.test);
    tests.push(`(${ta.test} or ${tb.test})`);
  }
  return tests;
}

/** A word naming the event's noun ("expenses" for expense.submitted). */
export function isEventNoun(word: string, shape: EventShape): boolean {
  const nouns = shape.type.slice(0, shape.type.lastIndexOf('.')).split(/[._-]/);
  return lemmas(word).some((l) => nouns.some((n) => lemmas(n).includes(l)));
}

/**
 * The event field that holds `word` as a value, and the value as the catalog spells it, tried in
 * this order: the field the words name ("chat channel", "if the reason is fraud"); a value a tool's
 * enum lists for an argument named like the field ("auth" -> service, "warnings" -> warning); a
 * value the event's sample events show (EventShape.values); a word of how bad something is, for the
 * one severity/priority/level field ("critical", "crit"); a word after "via" / "thru" / "by" /
 * "from" / "in" / "on", for the one channel/source field ("thru chat"); a word before the event's
 * noun or after "for", for the one category/type/kind field ("travel expenses"). The readings that
 * are not the catalog's own words are listed under "Assumed". Several fields or none: undefined.
 */
export function fieldForValue(
  word: string,
  shape: EventShape,
  ctx: RequestContext,
  how: {
    readonly prep?: string;
    readonly modifier?: boolean;
    readonly enums?: boolean;
    readonly field?: string;
  } = {},
): { field: string; value: string } | undefined {
  // ("nothing outstanding", "no flags": a word of how many is no value, unless the samples show it.)
  if (HOW_MANY.test(word) && !Object.values(shape.values ?? {}).some((v) => v.includes(word))) return;
  const forms = lemmas(word);
  // "chat channel", "high-priority": the field is named; a value it lists or shows wins, else the word.
  if (how.field !== undefined && shape.payload.includes(how.field)) {
    const f = how.field;
    const listed = [...enumValues(f, shape, ctx), ...(shape.values?.[f] ?? [])].find((v) =>
      forms.includes(v.toLowerCase()),
    );
    if (listed !== undefined) {
      noteClass(f, shape, ctx);
      return { field: f, value: listed };
    }
    ctx.assumptions.push(`"${word} ${f}" is read as ${shape.type}'s ${f} "${word}".`);
    return { field: f, value: word };
  }
  const one = (fields: readonly string[]) => (fields.length === 1 ? fields[0] : undefined);
  const listed = (how.enums === false ? [] : shape.payload).flatMap((field) =>
    enumValues(field, shape, ctx)
      .filter((v) => forms.includes(v.toLowerCase()))
      .map((value) => ({ field, value })),
  );
  if (listed.length === 1) {
    noteClass(listed[0]!.field, shape, ctx);
    return listed[0];
  }
  if (listed.length > 1) return undefined;
  // A value the event's samples show for a field ("critical" in a sample's severity).
  const sampled = Object.entries(shape.values ?? {}).flatMap(([field, vs]) =>
    vs.filter((v) => forms.includes(v.toLowerCase())).map((value) => ({ field, value })),
  );
  if (sampled.length === 1) return sampled[0];
  if (sampled.length > 1) return undefined;
  // "V-100", "PO-5001": an identifier of the form the tools give one field (patterned-values.ts).
  const patterned = fieldByPattern(word, shape, ctx);
  if (patterned) return patterned;
  // A value said short ("misinfo": misinformation), of one field's listed or sampled values.
  const all = [
    ...(how.enums === false ? [] : shape.payload).flatMap((field) =>
      enumValues(field, shape, ctx).map((value) => ({ field, value })),
    ),
    ...Object.entries(shape.values ?? {}).flatMap(([field, vs]) => vs.map((value) => ({ field, value }))),
  ];
  const short = shortFormOf(
    word,
    all.map((x) => x.value),
    knownWords(ctx),
  );
  const of = all.filter((x) => x.value === short);
  if (short !== undefined && new Set(of.map((x) => x.field)).size === 1) {
    noteClass(of[0]!.field, shape, ctx);
    ctx.assumptions.push(`"${word}" is read as ${shape.type}'s ${of[0]!.field} "${short}", said short.`);
    return of[0];
  }
  const assumed = (field: string, value: string, why: string) => {
    ctx.assumptions.push(`"${word}" is read as ${shape.type}'s ${field} "${value}": ${why}.`);
    return { field, value };
  };
  const severity = forms.map(severityOf).find((v) => v !== undefined);
  // By a whole part of the field's name: "resource" is no "source", "level" no severity.
  const part = (re: RegExp) => one(shape.payload.filter((p) => p.split('_').some((x) => re.test(x))));
  const sevField = part(/^(?:severity|priority|urgency|sev)$/);
  if (severity && sevField) return assumed(sevField, severity, `it says how severe it is`);
  const channel = part(/^(?:channel|source|via|medium)$/);
  if (
    channel &&
    ((how.prep && /^(?:via|through|thru|by|over|from|in|on)$/.test(how.prep)) || isChannelWord(word))
  )
    return assumed(channel, word, `it says how it came in`);
  const kind = part(/^(?:category|type|kind|class)$/);
  if (
    (how.modifier || how.prep === 'for') &&
    kind &&
    /^[a-z][a-z-]+$/.test(word) &&
    !isEventNoun(word, shape) &&
    !isPartyWord(word, ctx)
  )
    return assumed(kind, word, `it says which ones`);
  return undefined;
}
