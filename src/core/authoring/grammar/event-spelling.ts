/**
 * Values tested as the events spell them. A value said as people type it ("too expensive", "EU",
 * "tip line", "off" of a yes/no field) is put as the events hold it (`too_expensive`, `eu`,
 * `tip_line`, false; `asEventsSpell`), listed under Assumed: a test compares
 * exactly, so `reason != "too expensive"` would hold for every event and leave none out, and
 * `region == "EU"` would start no run. Applied to every test a draft holds (the trigger's, each
 * branch's, each step's `if`) once the readers made them. Pure but for the assumptions it lists.
 */
import { allSteps, type FlowStep, isChooseStep, isToolStep } from '../../spec/flow-steps.ts';
import type { WorkflowSpec } from '../../spec/workflow-spec.ts';
import type { DraftCatalog, EventShape } from '../compiled-request.ts';
import { draftTests } from '../draft-tests.ts';
import { numberWord } from '../request-words.ts';
import { yesOrNo } from './flag-fields.ts';
import { enumValues } from './listed-values.ts';
import { ownWord } from './paired-values.ts';
import { contextFor, type RequestContext } from './request-context.ts';
import { singular } from './trigger-words.ts';

/** A test of a payload field against a quoted value, as the readers write it. */
const TEST = /payload\.([A-Za-z_][A-Za-z0-9_]*) (==|!=) ("(?:[^"\\]|\\.)*")/g;

/** A value with its case and separators set aside. */
const key = (v: string) => v.toLowerCase().replace(/[\s_-]+/g, '_');

/** Words that lead to a value without being part of it: "on the (free tier)", "in a (paid plan)". */
const LEAD = /^(?:(?:on|in|at|from|of|with|under|via)\s+)?(?:the|a|an|our|their|its)\s+/i;

/** A phrase said where a value was read: "in the future", "on a weekend", "before the deadline". */
const PHRASE =
  /^(?:in|on|at|before|after|within|by|from|during|until|over|under)\s+(?:the|a|an|their|its|our)\s+[a-z]/i;

/** A field that counts ("attempt", "retry_count", "times_flagged"): only its number may be said as a word. */
const COUNTED = /(?:^|_)(?:attempts?|count|num|number|times|tries|retries|retry)(?:_|$)/;
const ORDINALS = [
  'first',
  'second',
  'third',
  'fourth',
  'fifth',
  'sixth',
  'seventh',
  'eighth',
  'ninth',
  'tenth',
];

/**
 * The value the events would hold for `said`, or undefined when it is as they spell it or no
 * spelling is sure: a yes/no field's "off" / "true" (false, true); a value the samples or a tool's
 * enum list but for case and separators, or followed by the field's own word ("enterprise tier");
 * where every value they list is lower case with `_` (or `-`) between words, `said` written so
 * ("Prior Fraud": prior_fraud, "EU": eu); for a field they list no value of and that counts, a
 * number said as a word ("the third attempt": 3). (At most two words: "under the deductible" is no
 * value, whatever read it as one.)
 */
function asEventsSpell(said: string, field: string, shape: EventShape, ctx: RequestContext): unknown {
  if (shape.flags?.includes(field)) return yesOrNo(said.toLowerCase());
  const known = [...new Set([...(shape.values?.[field] ?? []), ...enumValues(field, shape, ctx)])];
  if (known.includes(said)) return undefined;
  // ("the customer is enterprise tier": the field's own word said after its value.)
  const words = said.split(/\s+/);
  if (words.length > 1 && ownWord(words.at(-1)!, field)) {
    // ("on the free tier": the words that lead to the value are none of it.)
    const rest = words.slice(0, -1).join(' ').replace(LEAD, '');
    const value = known.filter((k) => key(k) === key(rest));
    if (value.length === 1) return value[0];
    if (known.length === 0) return rest;
  }
  const hits = known.filter((k) => key(k) === key(said));
  if (hits.length > 0) return hits.length === 1 ? hits[0] : undefined;
  // ("every meal expense" of `meals`: one value, said in the singular or the plural.)
  const number = known.filter((k) => singular(key(k)) === singular(key(said)));
  if (number.length === 1) return number[0];
  if (known.length === 0) {
    if (!COUNTED.test(field)) return undefined;
    const n = ORDINALS.indexOf(said.toLowerCase()) + 1 || numberWord(said.toLowerCase());
    return n || undefined;
  }
  if (
    !known.every((k) => /^[a-z0-9]+(?:[_-][a-z0-9]+)*$/.test(k)) ||
    !/^[A-Za-z0-9]+(?:[ _-][A-Za-z0-9]+)?$/.test(said)
  )
    return undefined;
  const dash = known.some((k) => k.includes('-')) && !known.some((k) => k.includes('_')) ? '-' : '_';
  const spelled = said.toLowerCase().replace(/[ _-]/g, dash);
  return spelled === said ? undefined : spelled;
}

/** `test` with each value said otherwise than the events spell it put as they do. */
export function spellAsEvents(test: string, shape: EventShape | undefined, ctx: RequestContext): string {
  if (!shape) return test;
  return test.replace(TEST, (all, field: string, op: string, literal: string) => {
    const said = JSON.parse(literal) as unknown;
    if (typeof said !== 'string') return all;
    const value = asEventsSpell(said, field, shape, ctx);
    // ("unless their last day is in the future": a phrase of time or place, no value a field holds.)
    if (value === undefined && PHRASE.test(said)) {
      ctx.questions.push({
        about: 'triggers.when',
        question: `I read "${said}" as a value of the ${shape.type} event's ${field}, but it is a phrase, not a value ${field} holds, and a test of it would ${op === '!=' ? 'hold for every event' : 'never hold'}. Which test of ${field} is meant?`,
      });
      return all;
    }
    if (value === undefined) return all;
    ctx.assumptions.push(
      `"${said}" is read as the ${shape.type} event's ${field} ${JSON.stringify(value)}, as its events spell it.`,
    );
    return `payload.${field} ${op} ${JSON.stringify(value)}`;
  });
}

/** The same for the tests inside a step list: each branch's `when`, each step's `if` (in place). */
export function spellFlowAsEvents(
  flow: readonly FlowStep[],
  shape: EventShape | undefined,
  ctx: RequestContext,
): void {
  for (const s of allSteps(flow)) {
    if (isToolStep(s) && s.if) (s as { if?: string }).if = spellAsEvents(s.if, shape, ctx);
    if (isChooseStep(s))
      for (const b of s.choose) (b as { when: string }).when = spellAsEvents(b.when, shape, ctx);
  }
}

/**
 * Each test of `spec` that names a value otherwise than the events spell it, with the spelling
 * they use (`reason != "too expensive"`: too_expensive): whatever compiled the draft, such a test
 * compares exactly and matches no event. Trigger tests against their own event; step and branch
 * tests against each trigger's.
 */
export function misspelledTests(
  spec: WorkflowSpec,
  catalog: DraftCatalog,
): { test: string; spelled: string }[] {
  const ctx = contextFor(catalog);
  const out: { test: string; spelled: string }[] = [];
  for (const { test, shapes } of draftTests(spec, catalog.events))
    for (const shape of shapes) {
      const spelled = spellAsEvents(test, shape, ctx);
      if (spelled !== test && !out.some((o) => o.test === test)) out.push({ test, spelled });
    }
  return out;
}
