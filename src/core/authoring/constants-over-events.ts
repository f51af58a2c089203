/**
 * A destructive step given a fixed value of a field its event tests for another value: "grant
 * editor access on analytics or crm" drafted as `grant_access(system: crm)` for the events whose
 * `system == "analytics"` grants CRM to whoever asked for analytics. A fixed value over the event's
 * own ("grant read access" to every request, "whatever role they asked for") is a reading the
 * words can mean and is left alone; one the draft's own test contradicts is asked about. Read on
 * the draft as drafted, so it holds whatever compiled it. Pure.
 */
import { allSteps, isToolStep } from '../spec/flow-steps.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import type { DraftCatalog } from './compiled-request.ts';
import { draftTests } from './draft-tests.ts';

export interface ConstantOverEvent {
  readonly step: string;
  readonly tool: string;
  readonly arg: string;
  readonly value: string;
  readonly event: string;
}

export function constantsOverEvents(spec: WorkflowSpec, catalog: DraftCatalog): ConstantOverEvent[] {
  const tests = draftTests(spec).map((t) => t.test);
  const out: ConstantOverEvent[] = [];
  for (const s of allSteps(spec)) {
    if (!isToolStep(s)) continue;
    const tool = catalog.tools.find((t) => t.name === s.tool);
    if (!tool?.destructive) continue;
    const props = (tool.args.properties ?? {}) as Record<string, { enum?: unknown[] }>;
    for (const [arg, value] of Object.entries(s.args)) {
      if (typeof value !== 'string' || value.includes('{{') || !props[arg]?.enum?.includes(value)) continue;
      for (const tr of spec.triggers) {
        const shape = catalog.events?.find((e) => e.type === tr.event);
        if (!shape?.payload.includes(arg)) continue;
        // Tested for another value of that field: the run gives one value to events that said another.
        const other = new RegExp(`payload\\.${arg} == "((?:[^"\\\\]|\\\\.)*)"`, 'g');
        if (tests.some((t) => [...t.matchAll(other)].some((m) => m[1] !== value)))
          out.push({ step: s.name, tool: s.tool, arg, value, event: tr.event });
      }
    }
  }
  return out;
}
