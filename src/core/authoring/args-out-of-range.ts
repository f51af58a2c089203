/**
 * An argument given an event field whose values, as the samples show them, its tool never takes:
 * "open an incident with the alert severity" drafted as `open_incident(severity: {{event.payload.
 * severity}})`, where incidents take sev1-sev3 and alerts are critical or warning, fails at that
 * step on every run. Read on the draft as drafted, so it holds whatever compiled it. Pure.
 */
import { allSteps, isToolStep } from '../spec/flow-steps.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import type { DraftCatalog } from './compiled-request.ts';

export interface ArgOutOfRange {
  readonly step: string;
  readonly tool: string;
  readonly arg: string;
  readonly field: string;
  readonly takes: readonly string[];
  readonly sampled: readonly string[];
}

export function argsOutOfRange(spec: WorkflowSpec, catalog: DraftCatalog): ArgOutOfRange[] {
  const out: ArgOutOfRange[] = [];
  for (const s of allSteps(spec)) {
    if (!isToolStep(s)) continue;
    const tool = catalog.tools.find((t) => t.name === s.tool);
    const props = (tool?.args.properties ?? {}) as Record<string, { enum?: unknown[] }>;
    for (const [arg, value] of Object.entries(s.args)) {
      const field =
        typeof value === 'string'
          ? /^\{\{\s*event\.payload\.([A-Za-z0-9_]+)\s*\}\}$/.exec(value)?.[1]
          : undefined;
      const takes = props[arg]?.enum?.filter((v): v is string => typeof v === 'string');
      if (field === undefined || !takes?.length) continue;
      for (const tr of spec.triggers) {
        const sampled = catalog.events?.find((e) => e.type === tr.event)?.values?.[field];
        if (sampled?.length && !sampled.some((v) => takes.includes(v)))
          out.push({ step: s.name, tool: s.tool, arg, field, takes, sampled });
      }
    }
  }
  return out;
}
