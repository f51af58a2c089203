/**
 * A value a test lets in that a step after it would refuse, whatever compiled the draft: the
 * trigger runs for `payload.service == "billing"` while a step passes `{{event.payload.service}}`
 * to an argument that takes only checkout, search, auth or payments-api, so every run it starts
 * for billing would fail at that step ("critical alerts on the billing service": which service is
 * meant?). So is an amount a test lets in only above the spend cap while a step moves that very
 * amount: the cap would refuse it on every run ("up to 1k -> pay. over 1k -> email" read as one
 * list of steps for invoices over $1,000). The trigger's tests hold for every step; a choice's
 * branch's test for the steps of that branch. Asked, never published. Pure.
 */
import { type FlowStep, isChooseStep, isToolStep, nestedLists } from '../spec/flow-steps.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import type { ToolDescriptor } from '../tools/tool-descriptor.ts';
import { payloadFieldOf } from './arg-words.ts';
import type { DraftQuestion } from './compiled-request.ts';
import { comparisonsOf, payloadField } from './test-comparisons.ts';

interface Test {
  readonly field: string;
  readonly op: '==' | '>' | '>=';
  readonly value: string | number;
}

/** The tests every event a condition lets in holds, or may hold (`==` under an `or`): none under a `not`. */
function testsOf(when: string): Test[] {
  return comparisonsOf(when).flatMap((c): Test[] => {
    const field = payloadField(c);
    if (field === undefined || c.underNot) return [];
    if (c.op === '==' && typeof c.value === 'string') return [{ field, op: c.op, value: c.value }];
    // (An amount bound under an "or" may not hold for every event: no bound.)
    if ((c.op === '>' || c.op === '>=') && typeof c.value === 'number' && !c.underOr)
      return [{ field, op: c.op, value: c.value }];
    return [];
  });
}

export function refusedTriggerValues(spec: WorkflowSpec, tools: readonly ToolDescriptor[]): DraftQuestion[] {
  const questions: DraftQuestion[] = [];
  const asked = new Set<string>();
  const cap = spec.limits.maxCostUsd;
  const ask = (key: string, q: DraftQuestion) => {
    if (asked.has(key)) return;
    asked.add(key);
    questions.push(q);
  };
  const visit = (steps: readonly FlowStep[], tests: readonly Test[]) => {
    for (const s of steps) {
      if (isChooseStep(s)) {
        for (const b of s.choose) visit(b.steps, [...tests, ...testsOf(b.when)]);
        if (s.else) visit(s.else, tests);
        continue;
      }
      if (!isToolStep(s)) {
        for (const l of nestedLists(s)) visit(l.steps, tests);
        continue;
      }
      const tool = tools.find((t) => t.name === s.tool);
      const props = (tool?.args.properties ?? {}) as Record<string, { enum?: unknown }>;
      for (const [arg, v] of Object.entries(s.args ?? {})) {
        const field = payloadFieldOf(v);
        const takes = props[arg]?.enum;
        if (field === undefined) continue;
        for (const t of tests) {
          if (t.field !== field) continue;
          if (t.op === '==' && Array.isArray(takes) && !takes.includes(t.value))
            ask(`${field}=${t.value}`, {
              about: `triggers: payload.${field}`,
              question: `The workflow runs ${s.name} for events whose ${field} is "${t.value}", but ${s.name} (${s.tool}) takes that ${field} as its ${arg}, which is one of ${takes.map((x) => JSON.stringify(x)).join(', ')}: every such run would fail there. Which ${field} is meant?`,
              candidates: takes.map(String),
            });
          const money = tool?.cost?.fromArg === arg;
          if (
            money &&
            t.op !== '==' &&
            (t.op === '>' ? cap <= (t.value as number) : cap < (t.value as number))
          )
            ask(`cap:${s.name}`, {
              about: 'limits.maxCostUsd',
              question: `The workflow runs ${s.name} only for events whose ${field} is ${t.op === '>' ? 'over' : 'at least'} ${t.value}, but its spend cap is $${cap}: ${s.name} (${s.tool}) moves that amount, so the cap would refuse it on every run. Which bound is meant for which steps?`,
            });
        }
      }
    }
  };
  visit(
    spec.steps as FlowStep[],
    spec.triggers.flatMap((t) => (t.when ? testsOf(t.when) : [])),
  );
  return questions;
}
