/**
 * Steps a draft would never run: a step's `if` (or a choice branch's `when`) that the trigger's own
 * `when` rules out, or a trigger whose own `when` rules itself out, by the same field tested
 * against values that cannot both hold (`payload.category != "spam"` on the trigger and
 * `payload.category == "spam"` on the step). Such a draft is self-contradictory, whatever compiled
 * it: words were read as two tests of one field where they meant two sides ("hide it if it's not
 * spam; if it IS spam, warn the author"). Pure.
 */
import { type FlowStep, isChooseStep, isToolStep, nestedLists } from '../spec/flow-steps.ts';
import type { Condition } from '../spec/parse-condition.ts';
import { parseStepCondition } from '../spec/step-condition.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import type { EventShape } from './compiled-request.ts';
import { draftTests } from './draft-tests.ts';

/** A field said equal, or not equal, to a literal. */
interface Fact {
  readonly path: string;
  readonly op: '==' | '!=';
  readonly value: unknown;
}

/** The facts a condition's top-level "and" states (an "or" or a "not" states none here). */
function factsOf(src: string): Fact[] {
  let c: Condition;
  try {
    c = parseStepCondition(src);
  } catch {
    return [];
  }
  const items = c.kind === 'and' ? c.items : [c];
  const out: Fact[] = [];
  for (const i of items)
    if (
      i.kind === 'compare' &&
      (i.op === '==' || i.op === '!=') &&
      i.left.kind === 'path' &&
      i.right.kind === 'literal'
    )
      out.push({ path: i.left.path.join('.'), op: i.op, value: i.right.value });
  return out;
}

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

/** Each test of a payload field against a literal in `c`, at any depth (under "or" and "not" too). */
function literalTests(c: Condition): { field: string; value: unknown }[] {
  switch (c.kind) {
    case 'and':
    case 'or':
      return c.items.flatMap(literalTests);
    case 'not':
      return literalTests(c.item);
    case 'compare': {
      const [path, lit] = c.left.kind === 'path' ? [c.left, c.right] : [c.right, c.left];
      return path.kind === 'path' &&
        lit.kind === 'literal' &&
        path.path.length === 2 &&
        path.path[0] === 'payload'
        ? [{ field: path.path[1]!, value: lit.value }]
        : [];
    }
    default:
      return [];
  }
}

/** A field that holds a number by its name ("photo_count", "amount_usd", "days_since_loss", "score"). */
const NUMBER_FIELD =
  /(?:^|_)(?:count|usd|amount|days|hours|minutes|weeks|months|years|score|seats|total|attempts?|qty|quantity|cents|price|balance)(?:_|$)/;

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
  return draftTests(spec, events).flatMap(({ test, shapes }) => {
    let c: Condition;
    try {
      c = parseStepCondition(test);
    } catch {
      return [];
    }
    return literalTests(c).flatMap((t): UnmetTest[] => {
      if (typeof t.value !== 'boolean' && shapes.some((s) => s?.flags?.includes(t.field)))
        return [{ when: test, ...t, gives: 'true or false' }];
      const words = typeof t.value === 'string' && !/^-?[0-9]+(?:\.[0-9]+)?$/.test(t.value.trim());
      if (words && NUMBER_FIELD.test(t.field) && shapes.some((s) => s?.payload.includes(t.field)))
        return [{ when: test, ...t, gives: 'a number' }];
      return [];
    });
  });
}
