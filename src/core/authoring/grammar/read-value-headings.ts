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
import { fieldForValue, isEventNoun } from './read-field-tests.ts';
import { cutOut, type RequestContext, type RequestText } from './request-context.ts';

/** Words a heading may hold beside its values. */
const FILLER = /^(?:only|just|all|any|every|the|for|ones?|pls|please)$/;
/** Where a heading ends and the actions start. */
const END = /\s*(?::|;|->|=>|→|\s[-–]\s)\s*/;

interface Test {
  readonly field: string;
  readonly value: string;
}

/** The tests one comma group says ("meals or travel"), or undefined when a word is no value. */
function groupTests(group: string, shape: EventShape, ctx: RequestContext): Test[] | undefined {
  const words = group
    .split(/\s*(?:\bor\b|\band\b|&|\/)\s*|\s+/)
    .filter((w) => w !== '' && !FILLER.test(w) && !isEventNoun(w, shape));
  if (words.length === 0) return undefined;
  const tests: Test[] = [];
  // Readings are listed under Assumed only once the whole heading reads.
  const held = ctx.assumptions.length;
  for (const w of words) {
    const hit = /^[a-z0-9][a-z0-9-]*$/.test(w) ? fieldForValue(w, shape, ctx) : undefined;
    if (!hit) {
      ctx.assumptions.length = held;
      return undefined;
    }
    tests.push(hit);
  }
  // "urgent or enterprise": alternatives of two fields are not read here.
  if (/\bor\b/.test(group) && new Set(tests.map((t) => t.field)).size > 1) {
    ctx.assumptions.length = held;
    return undefined;
  }
  return tests;
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
  const end = END.exec(rest);
  const head = end ? rest.slice(0, end.index) : rest;
  const groups = head.split(',');
  const tests: Test[] = [];
  let used = 0;
  for (const g of groups) {
    const t = groupTests(g.trim(), shape, ctx);
    if (!t) break;
    tests.push(...t);
    used += g.length + 1;
  }
  if (tests.length === 0) return [];
  // The heading runs to its end mark, or to a comma before the rest; some action must follow.
  const whole = used - 1 === head.length;
  const length = whole && end ? end.index + end[0].length : used;
  if (rest.slice(length).trim() === '') return [];
  // A later clause opening with a value of a field tested here: the cases of a choice.
  const fields = new Set(tests.map((t) => t.field));
  const held = ctx.assumptions.length;
  const later = rest
    .slice(length)
    .split(/[;.]|\s(?:->|=>|→)\s?/)
    .map((c) => c.trim().split(/[\s,:]+/)[0] ?? '')
    .filter((w) => /^[a-z0-9][a-z0-9-]*$/.test(w))
    .some((w) => {
      const hit = fieldForValue(w, shape, ctx);
      return hit !== undefined && fields.has(hit.field);
    });
  ctx.assumptions.length = held;
  if (later) return [];
  cutOut(buf, { index: start, 0: rest.slice(0, length) });
  return tests.map((t) => `payload.${t.field} == ${JSON.stringify(t.value)}`);
}
