/**
 * A comparison starts with "would each version start on this event?": a candidate whose trigger
 * was narrowed stops handling events the live version handles, and one whose trigger was broadened
 * starts on events the live version never sees. Either is a disagreement, whatever the steps say.
 *
 * Pure: triggers are evaluated with the condition language triggers use (`triggerMatches`); a
 * version starts on an event when any of its triggers matches it. The two comparisons here have the
 * shape `compareRuns` gives, with `starts` set, so reports, gates and the replay gate count them
 * with every other comparison.
 */
import type { EventRecord } from '../ledger/index.ts';
import { type TriggerSpec, triggerMatches } from '../spec/index.ts';
import { type Comparison, describeDecision, type StepComparison } from './compare-runs.ts';
import type { RunDecisions } from './run-decisions.ts';

/** Whether a version with these triggers starts a run for the event. */
export function startsOn(
  spec: { readonly id?: string; readonly triggers: readonly TriggerSpec[] },
  event: EventRecord,
): boolean {
  return spec.triggers.some((t) => triggerMatches(t, event, spec.id));
}

interface Labels {
  readonly event: EventRecord;
  readonly liveLabel: string;
  readonly candidateLabel: string;
}

const onEvent = (e: EventRecord) => (e.subject ? `on ${e.subject}` : `on event ${e.id}`);

/** The live version started a run on the event; the candidate's triggers do not match it. */
export function wouldNotStart(o: Labels & { readonly live?: RunDecisions }): Comparison {
  return {
    agree: false,
    steps: [],
    status: { live: o.live?.status ?? 'started', candidate: 'not started', same: false },
    newRefusals: [],
    sentences: [
      `${o.candidateLabel} would not start ${onEvent(o.event)} (none of its triggers matches ${o.event.type} ${o.event.id}), where ${o.liveLabel} started a run`,
    ],
    starts: { live: true, candidate: false },
  };
}

/**
 * The candidate starts on the event and the live version does not: what the candidate's run (a
 * simulated one) decided is all there is, and every refusal it made is one the live version did not.
 */
export function wouldStartAlone(candidate: RunDecisions, o: Labels): Comparison {
  const steps: StepComparison[] = candidate.steps.map((d) => ({
    step: d.step,
    candidate: d,
    same: false,
    differs: ['missing'],
  }));
  const did = candidate.steps.map(describeDecision);
  return {
    agree: false,
    steps,
    status: { live: 'not started', candidate: candidate.status, same: false },
    newRefusals: candidate.steps
      .filter((d) => d.outcome === 'refused')
      .map((d) => ({ step: d.step, code: d.code ?? 'refused' })),
    sentences: [
      `${o.candidateLabel} would start ${onEvent(o.event)}, which ${o.liveLabel} does not start (no trigger of ${o.liveLabel} matches ${o.event.type} ${o.event.id}), ${
        did.length > 0 ? `and would have ${did.join(', then ')}` : 'and would reach no step'
      }, ending ${candidate.status}`,
    ],
    starts: { live: false, candidate: true },
  };
}
