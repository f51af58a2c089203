/**
 * A destructive step given a fixed value of a field its event tests for another value: "grant
 * editor access on analytics or crm" drafted as `grant_access(system: crm)` for the events whose
 * `system == "analytics"` grants CRM to whoever asked for analytics. A fixed value over the event's
 * own ("grant read access" to every request, "whatever role they asked for") is a reading the
 * words can mean and is left alone; one the draft's own test contradicts is asked about, as is one
 * beside a test of another field for another value the argument takes ("remove posts reported for
 * spam or harassment" drafted as a removal of spam posts with reason harassment). Read on
 * the draft as drafted, so it holds whatever compiled it. Pure.
 */
import { allSteps, isToolStep } from '../spec/flow-steps.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import type { DraftCatalog } from './compiled-request.ts';
import { draftTests } from './draft-tests.ts';
import { comparisonsOf, payloadField } from './test-comparisons.ts';

export interface ConstantOverEvent {
  readonly step: string;
  readonly tool: string;
  readonly arg: string;
  readonly value: string;
  readonly event: string;
  /** The field the draft tests, and the value it tests for. */
  readonly field: string;
  readonly said: string;
}

export function constantsOverEvents(spec: WorkflowSpec, catalog: DraftCatalog): ConstantOverEvent[] {
  const tests = draftTests(spec).flatMap((t) => comparisonsOf(t.test));
  const out: ConstantOverEvent[] = [];
  for (const s of allSteps(spec)) {
    if (!isToolStep(s)) continue;
    const tool = catalog.tools.find((t) => t.name === s.tool);
    if (!tool?.destructive) continue;
    const props = (tool.args.properties ?? {}) as Record<string, { enum?: unknown[] }>;
    for (const [arg, value] of Object.entries(s.args)) {
      const takes = props[arg]?.enum;
      if (typeof value !== 'string' || value.includes('{{') || !takes?.includes(value)) continue;
      for (const tr of spec.triggers) {
        const shape = catalog.events?.find((e) => e.type === tr.event);
        // Tested for another value of that field, or of another field for a value the argument
        // takes too ("spam" posts removed with reason "harassment"): the run gives one value to
        // events that said another.
        for (const c of tests) {
          const field = payloadField(c);
          const said = c.value;
          if (c.op !== '==' || typeof said !== 'string' || said === value) continue;
          if (field === undefined || !shape?.payload.includes(field)) continue;
          if (field === arg || takes.includes(said))
            out.push({ step: s.name, tool: s.tool, arg, value, event: tr.event, field, said });
        }
      }
    }
  }
  return out;
}
