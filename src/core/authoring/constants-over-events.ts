/**
 * A destructive step's fixed value over what its event says (any step's, for the very field the
 * draft tests: "approve travel and meal expenses" approving the meals ones as travel). One the
 * draft's own test contradicts is asked about: "grant editor access on analytics or crm" drafted as `grant_access(system: crm)`
 * for the events whose `system == "analytics"` grants CRM to whoever asked for analytics; so is one
 * beside a test of another field for another value the argument takes ("remove posts reported for
 * spam or harassment" drafted as a removal of spam posts with reason harassment). One no test
 * reads at all is asked about too, unless it is a level, a reason or a class, or the words say it
 * goes to every event (`untestedConstants`). Read on the draft as drafted, so it holds whatever
 * compiled it. Pure.
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
  /** The test says the field is not that value. */
  readonly not?: boolean;
}

/** A destructive step's fixed value for a field its event carries and no test of the draft reads. */
export interface UntestedConstant {
  readonly step: string;
  readonly tool: string;
  readonly arg: string;
  readonly value: string;
  readonly event: string;
}

/** Arguments that say how much, not what: one fixed for every event is a policy the words can say ("grant read access"). */
const LEVEL = /(?:^|_)(?:role|level|permission|permissions|access|scope|tier|mode)(?:_|$)/;
/** Arguments that say why the step acts: the action's own ("a goodwill credit"), rarely the event's (why they cancelled). */
const WHY = /(?:^|_)(?:reason|category|type|kind|class|cause|note)(?:_|$)/;

/** Words that say the event's own value does not matter: "regardless of the role asked for", "whatever role". */
const WHATEVER = /\b(?:regardless of|whatever|no matter|irrespective of)(?:\s+\w+){0,3}|\bany/;

/**
 * "make it so viewer access to analytics is granted automatically" drafted as a grant of
 * analytics to every access request, whatever system the event asks for: a destructive step gives
 * a fixed value to an argument named like a field of its event, and no test reads that field.
 * Whether the words meant those events only or every event is asked. Read only for a value of a
 * list the tool takes; left alone: one fixed level beside the event's own values ("grant read
 * access" to whatever system was asked for), a reason or a class (a "goodwill" credit whatever
 * the cancellation's reason), and a value the words say goes to every event ("regardless of the
 * role asked for, grant editor").
 */
export function untestedConstants(
  request: string,
  spec: WorkflowSpec,
  catalog: DraftCatalog,
): UntestedConstant[] {
  const read = new Set(draftTests(spec).flatMap((t) => comparisonsOf(t.test).map((c) => c.path)));
  const text = request.toLowerCase();
  const out: UntestedConstant[] = [];
  const fields = new Set(
    spec.triggers.flatMap((tr) => catalog.events?.find((e) => e.type === tr.event)?.payload ?? []),
  );
  for (const s of allSteps(spec)) {
    const tool = isToolStep(s) ? catalog.tools.find((t) => t.name === s.tool) : undefined;
    if (!isToolStep(s) || !tool?.destructive) continue;
    const props = (tool.args.properties ?? {}) as Record<string, { enum?: unknown[] }>;
    // (A value from a list the tool takes: a free text, "Auto-closed after resolution", is no event's value.)
    const fixed = Object.entries(s.args).filter(
      (a): a is [string, string] =>
        typeof a[1] === 'string' &&
        props[a[0]]?.enum?.includes(a[1]) === true &&
        fields.has(a[0]) &&
        !read.has(`payload.${a[0]}`),
    );
    for (const [arg, value] of fixed) {
      if ((LEVEL.test(arg) && fixed.length === 1) || WHY.test(arg)) continue;
      if (new RegExp(String.raw`(?:${WHATEVER.source})\s+${arg.replace(/_/g, '[ _]')}s?\b`).test(text))
        continue;
      for (const tr of spec.triggers)
        if (catalog.events?.find((e) => e.type === tr.event)?.payload.includes(arg))
          out.push({ step: s.name, tool: s.tool, arg, value, event: tr.event });
    }
  }
  return out;
}

export function constantsOverEvents(spec: WorkflowSpec, catalog: DraftCatalog): ConstantOverEvent[] {
  const tests = draftTests(spec).flatMap((t) => comparisonsOf(t.test));
  const out: ConstantOverEvent[] = [];
  for (const s of allSteps(spec)) {
    if (!isToolStep(s)) continue;
    const tool = catalog.tools.find((t) => t.name === s.tool);
    if (!tool) continue;
    // (Any tool that files an event under another value of the very field its test reads: "approve
    // travel and meal expenses" drafted as the meals ones approved with category travel.)
    const sameFieldOnly = !tool.destructive;
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
          // ("grant production viewer access, but never admin on production" drafted as a grant
          // of production to the events whose system is not production.)
          // (Only where the tool takes the tested value too: an alert's severity "warning" is no
          // incident's sev3.)
          if (sameFieldOnly && (field !== arg || !takes.includes(said as string))) continue;
          if (c.op === '!=' && field === arg && said === value) {
            out.push({ step: s.name, tool: s.tool, arg, value, event: tr.event, field, said, not: true });
            continue;
          }
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
