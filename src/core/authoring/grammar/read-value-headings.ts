/**
 * A heading of values that opens a request: "meals or travel, USD only: approve & pay back",
 * "monitors & headsets - order them", "criticals: open a sev1". Each word of the heading is a value
 * a field of the event holds (`fieldForValue`: a value the tools list or the samples show, an id of
 * a field's form, a word of how severe it is), joined by "or", "and", "&", "/" or commas, with
 * "only", "just" or the event's noun around them; the heading ends where the actions start (":",
 * ";", "->", "→", " - ", or a comma before the rest). The heading says which events: values of one
 * field are alternatives ("meals or travel"), of different fields all hold ("meals, USD only").
 *
 * Read only as the trigger's filter, never as the cases of a choice: not when the request says an
 * else, and not when a later clause opens with a value of a field the heading tests ("illegal →
 * hide; misinformation → hide only" is a choice, asked about as before). A heading with any word
 * no field holds is left to the readers after it (and their question), whole.
 */
import type { EventShape } from '../compiled-request.ts';
import { isActionVerb } from '../request-words.ts';
import { fieldForValue, isEventNoun } from './read-field-tests.ts';
import { cutOut, probing, type RequestContext, type RequestText } from './request-context.ts';

/** Words a heading may hold beside its values. */
const BESIDE_VALUES = /^(?:only|just|all|any|every|the|for|ones?|pls|please)$/;
/** Where a heading ends and the actions start. */
const END = /\s*(?::|;|->|=>|→|\s[-–]\s)\s*/;

/** A value read, and the field that holds it. */
type Test = NonNullable<ReturnType<typeof fieldForValue>>;

/** A word a heading may hold, beside its values: filler or the event's noun. */
const skipped = (w: string, shape: EventShape) => w === '' || BESIDE_VALUES.test(w) || isEventNoun(w, shape);

/**
 * The tests one comma group says ("meals or travel", "checkout or search warnings"), or undefined
 * when a word is no value. Alternatives ("or", "&", "/") are one word each and of one field; the
 * last may carry one more word, of another field, said of every alternative ("search warnings").
 * Alternatives of two fields ("urgent or enterprise") are not read here. Without alternatives,
 * every word holds ("USD only", "meals and travel": values of one field are either, joined later).
 */
export function groupTests(group: string, shape: EventShape, ctx: RequestContext): Test[] | undefined {
  const parts = group
    .split(/\s*(?:\bor\b|&|\/)\s*/)
    .map((p) => p.split(/\s+|\band\b/).filter((w) => !skipped(w, shape)));
  const words = parts.flat();
  if (words.length === 0) return undefined;
  // Read on a probe: its readings are listed under Assumed only once the whole group reads.
  const probe = probing(ctx);
  const tests: Test[] = [];
  for (const w of words) {
    const hit = /^[a-z0-9][a-z0-9-]*$/.test(w) ? fieldForValue(w, shape, probe) : undefined;
    if (!hit) return undefined;
    tests.push(hit);
  }
  if (parts.length > 1) {
    const last = parts[parts.length - 1]!;
    const shapeOk = parts.slice(0, -1).every((p) => p.length === 1) && last.length <= 2;
    const alternatives = last.length === 2 ? tests.slice(0, -1) : tests;
    const qualifier = last.length === 2 ? tests[tests.length - 1] : undefined;
    const fields = new Set(alternatives.map((t) => t.field));
    if (!shapeOk || fields.size !== 1 || (qualifier && fields.has(qualifier.field))) return undefined;
  }
  for (const a of probe.assumptions) if (!ctx.assumptions.includes(a)) ctx.assumptions.push(a);
  for (const w of probe.wholeReading) if (!ctx.wholeReading.includes(w)) ctx.wholeReading.push(w);
  return tests;
}

/** A heading ended by its mark, or by a comma before the rest: its tests and its length. */
function marked(rest: string, shape: EventShape, ctx: RequestContext) {
  const end = END.exec(rest);
  const head = end ? rest.slice(0, end.index) : rest;
  const tests: Test[] = [];
  let used = 0;
  for (const g of head.split(',')) {
    const t = groupTests(g.trim(), shape, ctx);
    if (!t) break;
    tests.push(...t);
    used += g.length + 1;
  }
  if (tests.length === 0) return undefined;
  const whole = used - 1 === head.length;
  const length = whole && end ? end.index + end[0].length : used;
  return rest.slice(length).trim() === '' ? undefined : { tests, length };
}

/**
 * "for warnings open a sev3 ...": "for" (or "on") and values, then an action with no mark between;
 * the heading ends where the action's verb starts.
 */
function leadIn(rest: string, shape: EventShape, ctx: RequestContext) {
  const lead = /^(?:for|on)\s+/.exec(rest);
  if (!lead) return undefined;
  // The words up to the first action verb, at most four values with their joiners.
  const words = [...rest.slice(lead[0].length).matchAll(/[a-z0-9][a-z0-9-]*|[&/]/g)].slice(0, 8);
  const verb = words.findIndex((w) => isActionVerb(w[0]));
  if (verb < 1) return undefined;
  const at = lead[0].length + words[verb]!.index;
  const tests = groupTests(rest.slice(lead[0].length, at).trim(), shape, ctx);
  return tests ? { tests, length: at } : undefined;
}

export function readValueHeading(
  buf: RequestText,
  event: string | undefined,
  choiceSaid: boolean,
  ctx: RequestContext,
): string[] {
  const shape = ctx.events?.find((e) => e.type === event);
  if (!shape || choiceSaid) return [];
  const start = buf.text.search(/\S/);
  if (start < 0) return [];
  const rest = buf.text.slice(start);
  const read = leadIn(rest, shape, ctx) ?? marked(rest, shape, ctx);
  if (!read) return [];
  const { tests, length } = read;
  // A later clause opening with a value of a field tested here: the cases of a choice.
  const fields = new Set(tests.map((t) => t.field));
  const probe = probing(ctx);
  const later = rest
    .slice(length)
    .split(/[;.]|\s(?:->|=>|→)\s?/)
    .map((c) => c.trim().split(/[\s,:]+/)[0] ?? '')
    .filter((w) => /^[a-z0-9][a-z0-9-]*$/.test(w))
    .some((w) => {
      const hit = fieldForValue(w, shape, probe);
      return hit !== undefined && fields.has(hit.field);
    });
  if (later) return [];
  cutOut(buf, { index: start, 0: rest.slice(0, length) });
  return tests.map((t) => `payload.${t.field} == ${JSON.stringify(t.value)}`);
}

/**
 * A sentence that says only values and "only" ("USD only pls.", "only USD."), or a request's last
 * comma group that does (", USD only"): which events, as a heading says them, wherever it is said,
 * a choice's cases too (a case is said with its action: "USD only: refund" is no such sentence).
 */
export function readOnlyValues(buf: RequestText, event: string | undefined, ctx: RequestContext): string[] {
  const shape = ctx.events?.find((e) => e.type === event);
  if (!shape) return [];
  const out: string[] = [];
  for (const m of [...buf.text.matchAll(/(?<=^|[.;!?,])([^.;!?,:]*\bonly\b[^.;!?,:]*)(?=[.;!?]|$)/g)]) {
    const group = m[1]!.trim();
    const tests = group === '' ? undefined : groupTests(group, shape, ctx);
    if (!tests) continue;
    cutOut(buf, { index: m.index!, 0: m[1]! });
    out.push(...tests.map((t) => `payload.${t.field} == ${JSON.stringify(t.value)}`));
  }
  return out;
}
