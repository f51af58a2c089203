/**
 * A value the trigger lets in that a step would refuse, whatever compiled the draft: the trigger
 * runs for `payload.service == "billing"` while a step passes `{{event.payload.service}}` to an
 * argument that takes only checkout, search, auth or payments-api, so every run it starts for
 * billing would fail at that step. Asked, never published ("critical alerts on the billing
 * service": which service is meant?). So is an amount the trigger lets in only above the spend cap
 * while a step moves that very amount: the cap would refuse it on every run ("up to 1k -> pay.
 * over 1k -> email" read as one list of steps for invoices over $1,000). Pure.
 */

import { toolSteps } from '../spec/flow-steps.ts';
import { type Condition, parseCondition } from '../spec/parse-condition.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import type { ToolDescriptor } from '../tools/tool-descriptor.ts';
import type { DraftQuestion } from './compiled-request.ts';

/** The `payload.<field> == "value"` tests a condition lets events in by (none under a `not`). */
function equalities(c: Condition, out: [string, string][] = []): [string, string][] {
  if (c.kind === 'and' || c.kind === 'or') for (const i of c.items) equalities(i, out);
  if (c.kind !== 'compare' || c.op !== '==') return out;
  const [path, value] = c.left.kind === 'path' ? [c.left, c.right] : [c.right, c.left];
  if (path.kind !== 'path' || value.kind !== 'literal' || typeof value.value !== 'string') return out;
  const p = path.path[0] === 'event' ? path.path.slice(1) : path.path;
  if (p.length === 2 && p[0] === 'payload') out.push([p[1]!, value.value]);
  return out;
}

export function refusedTriggerValues(spec: WorkflowSpec, tools: readonly ToolDescriptor[]): DraftQuestion[] {
  const questions: DraftQuestion[] = refusedAmounts(spec, tools);
  const tests = spec.triggers.flatMap((t) => (t.when ? equalities(parseCondition(t.when)) : []));
  const asked = new Set<string>();
  for (const s of toolSteps(spec)) {
    const props = (tools.find((t) => t.name === s.tool)?.args.properties ?? {}) as Record<
      string,
      { enum?: unknown }
    >;
    for (const [arg, v] of Object.entries(s.args ?? {})) {
      const field =
        typeof v === 'string' ? /^\{\{event\.payload\.([A-Za-z0-9_]+)\}\}$/.exec(v)?.[1] : undefined;
      const takes = props[arg]?.enum;
      if (field === undefined || !Array.isArray(takes)) continue;
      for (const [f, value] of tests) {
        if (f !== field || takes.includes(value) || asked.has(`${f}=${value}`)) continue;
        asked.add(`${f}=${value}`);
        questions.push({
          about: `triggers: payload.${f}`,
          question: `The workflow runs for events whose ${f} is "${value}", but ${s.name} (${s.tool}) takes that ${f} as its ${arg}, which is one of ${takes.map((x) => JSON.stringify(x)).join(', ')}: every such run would fail there. Which ${f} is meant?`,
          candidates: takes.map(String),
        });
      }
    }
  }
  return questions;
}

/** The `payload.<field> > n` (or `>=`) bounds every event the trigger lets in holds (its `and`s). */
function lowerBounds(c: Condition, out: { field: string; op: '>' | '>='; n: number }[] = []) {
  if (c.kind === 'and') for (const i of c.items) lowerBounds(i, out);
  if (c.kind !== 'compare' || (c.op !== '>' && c.op !== '>=')) return out;
  const { left, right } = c;
  if (left.kind !== 'path' || right.kind !== 'literal' || typeof right.value !== 'number') return out;
  const p = left.path[0] === 'event' ? left.path.slice(1) : left.path;
  if (p.length === 2 && p[0] === 'payload') out.push({ field: p[1]!, op: c.op, n: right.value });
  return out;
}

function refusedAmounts(spec: WorkflowSpec, tools: readonly ToolDescriptor[]): DraftQuestion[] {
  const cap = spec.limits.maxCostUsd;
  const bounds = spec.triggers.flatMap((t) =>
    t.when ? lowerBounds(parseCondition(t.when)).map((b) => ({ ...b, event: t.event })) : [],
  );
  for (const s of toolSteps(spec)) {
    const arg = tools.find((t) => t.name === s.tool)?.cost?.fromArg;
    const v = arg === undefined ? undefined : s.args?.[arg];
    const field =
      typeof v === 'string' ? /^\{\{event\.payload\.([A-Za-z0-9_]+)\}\}$/.exec(v)?.[1] : undefined;
    const b = bounds.find((x) => x.field === field && (x.op === '>' ? cap <= x.n : cap < x.n));
    if (b)
      return [
        {
          about: 'limits.maxCostUsd',
          question: `The workflow runs only for ${b.event} events whose ${b.field} is ${b.op === '>' ? 'over' : 'at least'} ${b.n}, but its spend cap is $${cap}: ${s.name} (${s.tool}) moves that amount, so the cap would refuse it on every run. Which bound is meant for which steps?`,
        },
      ];
  }
  return [];
}
