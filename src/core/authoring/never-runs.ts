/**
 * Steps a draft would never run: a step's `if` (or a choice branch's `when`) that the trigger's own
 * `when` rules out, or a trigger whose own `when` rules itself out, by the same field tested
 * against values that cannot both hold (`payload.category != "spam"` on the trigger and
 * `payload.category == "spam"` on the step). Such a draft is self-contradictory, whatever compiled
 * it: words were read as two tests of one field where they meant two sides ("hide it if it's not
 * spam; if it IS spam, warn the author"). Pure.
 */
import { type FlowStep, isChooseStep, isToolStep, nestedLists } from '../spec/flow-steps.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import type { EventShape } from './compiled-request.ts';
import { draftTests } from './draft-tests.ts';
import { type Comparison, comparisonsOf, payloadField } from './test-comparisons.ts';

/** A field said equal, or not equal, to a literal, wherever the test holds. */
type Fact = Comparison & { readonly op: '==' | '!=' };

/** The facts a condition states (an item of an "or", or under a "not", states none here). */
const factsOf = (src: string): Fact[] =>
  comparisonsOf(src).filter((c): c is Fact => c.stated && (c.op === '==' || c.op === '!='));

/** Whether two facts of one field can never both hold. */
function clash(a: Fact, b: Fact): boolean {
  if (a.path !== b.path) return false;
  if (a.op === '==' && b.op === '==') return a.value !== b.value;
  if (a.op !== b.op) return a.value === b.value;
  return false;
}

/**
 * Each trigger whose own `when` can never hold: one field tested against values that cannot both
 * hold ("urgent tickets ... aren't really urgent" read as `priority == "urgent"` and
 * `priority != "urgent"`). No event would ever start a run.
 */
export function triggersThatNeverFire(spec: WorkflowSpec): string[] {
  return spec.triggers.flatMap((t) => {
    const facts = t.when ? factsOf(t.when) : [];
    return facts.some((f, i) => facts.slice(i + 1).some((g) => clash(f, g))) ? [t.when!] : [];
  });
}

/** Each step (or branch) whose test every trigger of the spec rules out: its name and test. */
export function stepsThatNeverRun(spec: WorkflowSpec): { step: string; when: string; trigger: string }[] {
  if (spec.triggers.length === 0 || spec.triggers.some((t) => !t.when)) return [];
  const triggers = spec.triggers.map((t) => ({ when: t.when!, facts: factsOf(t.when!) }));
  const out: { step: string; when: string; trigger: string }[] = [];
  const test = (name: string, when: string) => {
    const mine = factsOf(when);
    if (triggers.every((t) => t.facts.some((f) => mine.some((m) => clash(f, m)))))
      out.push({ step: name, when, trigger: triggers[0]!.when });
  };
  const walk = (list: readonly FlowStep[]) => {
    for (const s of list) {
      if (isToolStep(s) && s.if) test(s.name, s.if);
      if (isChooseStep(s)) for (const b of s.choose) test(s.name, b.when);
      for (const l of nestedLists(s)) walk(l.steps);
    }
  };
  walk(spec.steps);
  return out;
}

/** A field that holds a number by its name ("photo_count", "amount_usd", "days_since_loss", "score"). */
const NUMBER_FIELD =
  /(?:^|_)(?:count|usd|amount|days|hours|minutes|weeks|months|years|score|seats|total|attempts?|qty|quantity|cents|price|balance)(?:_|$)/;

/** A field named by a participle alone ("shipped", "is_verified", "has_refunded"): whether it happened. */
const YES_NO_NAME = /^(?:(?:is|has|was)_)?[a-z]{3,}ed$/;

/**
 * Each test that compares a field with what the event never gives it: a yes/no field (one every
 * sample gives as true or false) with something other than true or false (`payload.autopay ==
 * "without"`), a field that holds a number by its name with words (`payload.photo_count == "zero
 * request photos"`). No event can meet it as it reads, whatever compiled the draft, so the words
 * were misread. Trigger tests are checked against their own event; step and branch tests against
 * every trigger's.
 */
export interface UnmetTest {
  readonly when: string;
  readonly field: string;
  readonly value: unknown;
  readonly gives: 'true or false' | 'a number';
}

export function testsNoEventMeets(spec: WorkflowSpec, events: readonly EventShape[]): UnmetTest[] {
  return draftTests(spec, events).flatMap(({ test, shapes }) =>
    comparisonsOf(test).flatMap((c): UnmetTest[] => {
      const field = payloadField(c);
      if (field === undefined) return [];
      const t = { when: test, field, value: c.value };
      if (typeof c.value !== 'boolean' && shapes.some((s) => s?.flags?.includes(field)))
        return [{ ...t, gives: 'true or false' }];
      // ("address changed after the order shipped": `shipped == "order"`.) A field named by a
      // participle alone, whose values no sample shows, says whether it happened: true or false.
      if (
        typeof c.value === 'string' &&
        YES_NO_NAME.test(field) &&
        shapes.some((s) => s?.payload.includes(field) && s.values?.[field] === undefined)
      )
        return [{ ...t, gives: 'true or false' }];
      const words = typeof c.value === 'string' && !/^-?[0-9]+(?:\.[0-9]+)?$/.test(c.value.trim());
      if (words && NUMBER_FIELD.test(field) && shapes.some((s) => s?.payload.includes(field)))
        return [{ ...t, gives: 'a number' }];
      return [];
    }),
  );
}
