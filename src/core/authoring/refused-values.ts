/**
 * A value the trigger lets in that a step would refuse, whatever compiled the draft: the trigger
 * runs for `payload.service == "billing"` while a step passes `{{event.payload.service}}` to an
 * argument that takes only checkout, search, auth or payments-api, so every run it starts for
 * billing would fail at that step. Asked, never published ("critical alerts on the billing
 * service": which service is meant?). Pure.
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
  const tests = spec.triggers.flatMap((t) => (t.when ? equalities(parseCondition(t.when)) : []));
  const questions: DraftQuestion[] = [];
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
