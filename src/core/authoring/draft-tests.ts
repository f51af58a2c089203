/**
 * Every test a draft holds, with the events it is read against: each trigger's `when` against its
 * own event, each step's `if` and each branch's `when` against every trigger's event (a step runs
 * for any of them). The draft-level checks read tests through this one walk (never-runs.ts,
 * dropped-exclusions.ts, grammar/event-spelling.ts). Pure.
 */
import { allSteps, isChooseStep, isToolStep } from '../spec/flow-steps.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import type { EventShape } from './compiled-request.ts';

export interface DraftTest {
  readonly test: string;
  /** The shapes of the events it is read against (undefined where the catalog knows none). */
  readonly shapes: readonly (EventShape | undefined)[];
}

export function draftTests(spec: WorkflowSpec, events: readonly EventShape[] = []): DraftTest[] {
  const shapeOf = (type: string) => events.find((e) => e.type === type);
  const all = spec.triggers.map((t) => shapeOf(t.event));
  return [
    ...spec.triggers.flatMap((t) => (t.when ? [{ test: t.when, shapes: [shapeOf(t.event)] }] : [])),
    ...allSteps(spec).flatMap((s) =>
      [...(isToolStep(s) && s.if ? [s.if] : []), ...(isChooseStep(s) ? s.choose.map((b) => b.when) : [])].map(
        (test) => ({ test, shapes: all }),
      ),
    ),
  ];
}

/** Every test of the draft as one lower-case text, for checks that ask whether any test names a word. */
export function testsText(spec: WorkflowSpec): string {
  return draftTests(spec)
    .map((t) => t.test)
    .join(' ')
    .toLowerCase();
}
