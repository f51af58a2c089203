/**
 * Where a candidate version's run agrees with a live run on the same event, decision by decision
 * (lined up by behaviour, never by step name): the same tool? the same arguments (by canonical
 * hash, with a field-level diff)? the same refusal? the same need for a person? the same final
 * status? the same branch of each choice? Used for a SHADOW version's run beside the live
 * run it shadows, and by the replay gate for a candidate re-planned on a live run's record.
 *
 * Pure. A live run a person denied is compared up to that step only: what the candidate would do
 * after a denial it assumed to be an approval is not evidence about the version.
 */
import type { EventRecord } from '../ledger/index.ts';
import { alignDecisions } from './align-decisions.ts';
import { fieldDiff, type RunDecisions, type StepDecision } from './run-decisions.ts';

export interface StepComparison {
  /** The live run's step (the candidate's where only the candidate decided). */
  readonly step: string;
  /** The candidate's name for the step, where it names it otherwise (a rename alone is no difference). */
  readonly candidateStep?: string;
  readonly live?: StepDecision;
  readonly candidate?: StepDecision;
  readonly same: boolean;
  /** What differs, in a word each: `tool`, `arguments`, `outcome`, `refusal`, `approval`, `missing`. */
  readonly differs: readonly string[];
  /** With `arguments`: the leaves that differ (live value `a`, candidate value `b`). */
  readonly fields?: readonly { readonly field: string; readonly a: unknown; readonly b: unknown }[];
}

export interface Comparison {
  readonly agree: boolean;
  readonly steps: readonly StepComparison[];
  readonly status: { readonly live: string; readonly candidate: string; readonly same: boolean };
  /** Steps the candidate refused where the live run did not refuse. */
  readonly newRefusals: readonly { readonly step: string; readonly code: string }[];
  /** Set when the live run was denied by a person at a step: nothing after it was compared. */
  readonly stoppedAt?: { readonly step: string; readonly by: string };
  /** The disagreements in plain language, one sentence each. */
  readonly sentences: readonly string[];
  /**
   * Set when only one of the two versions starts on the event (compare-starts.ts): the live one
   * started and the candidate's triggers do not match, or the other way round. Always a disagreement.
   */
  readonly starts?: { readonly live: boolean; readonly candidate: boolean };
  /** Choices (`choose:`) of the same name that took another branch: always a disagreement. */
  readonly branches?: readonly {
    readonly step: string;
    readonly live: number | 'else';
    readonly candidate: number | 'else';
  }[];
}

const same = (a: StepDecision, b: StepDecision): string[] => {
  const d: string[] = [];
  if (a.tool !== b.tool) d.push('tool');
  else if (a.argsHash !== b.argsHash) d.push('arguments');
  // Where the live run waits for a person, or a person denied it, what follows is that person's:
  // the candidate agrees if it would have asked too.
  const personal = a.outcome === 'waiting' || a.decidedBy?.decision === 'denied';
  if (personal && b.approval) return d;
  if (a.outcome !== b.outcome) d.push('outcome');
  else if (a.outcome === 'refused' && a.code !== b.code) d.push('refusal');
  if (a.approval !== b.approval) d.push('approval');
  return d;
};

/** A decision in words, as a past action: "called issue_refund with amount_usd=45", "refused ...". */
function what(d: StepDecision): string {
  const args = d.args
    ? Object.entries(d.args)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(', ')
    : '';
  const call = `${d.tool}${args ? ` with ${args}` : ''}`;
  if (d.outcome === 'refused') return `refused ${d.tool} (${d.code ?? 'refused'})`;
  if (d.outcome === 'waiting') return `waited for a person to approve ${call}`;
  return d.approval ? `called ${call} once a person approved it` : `called ${call}`;
}

/** A step's decision in words, as a past action (the sentences of a comparison use it). */
export const describeDecision = what;

/** Where a pair sits, for people: its step, or both names where the versions name it differently. */
function atStep(a: StepDecision | undefined, b: StepDecision | undefined, liveLabel: string): string {
  if (a && b && a.step !== b.step) return `at step ${b.step} (${a.step} in ${liveLabel})`;
  return `at step ${(b ?? a)!.step}`;
}

/**
 * Compares a candidate's run with the live run on the same event; labels name them in sentences.
 * Decisions are lined up by what they do (align-decisions.ts), never by step name: a version that
 * only renames steps agrees, and any other tool, other arguments, another order, a refusal or a
 * need for a person is a disagreement.
 */
export function compareRuns(
  live: RunDecisions,
  candidate: RunDecisions,
  o: { readonly event: EventRecord; readonly liveLabel: string; readonly candidateLabel: string },
): Comparison {
  const steps: StepComparison[] = [];
  const sentences: string[] = [];
  const newRefusals: { step: string; code: string }[] = [];
  const on = o.event.subject ? `on ${o.event.subject}` : `on event ${o.event.id}`;
  let stoppedAt: Comparison['stoppedAt'];
  for (const { live: a, candidate: b } of alignDecisions(live.steps, candidate.steps)) {
    const where = atStep(a, b, o.liveLabel);
    if (!a || !b) {
      const d = (a ?? b)!;
      steps.push({
        step: d.step,
        ...(a ? { live: a } : { candidate: b! }),
        same: false,
        differs: ['missing'],
      });
      sentences.push(
        a
          ? `${o.candidateLabel} would not have ${what(a)}, as ${o.liveLabel} did ${where} ${on}`
          : `${o.candidateLabel} would also have ${what(b!)} ${where}, which ${o.liveLabel} did not ${on}`,
      );
      if (b?.outcome === 'refused') newRefusals.push({ step: b.step, code: b.code ?? 'refused' });
    } else {
      const differs = same(a, b);
      // Arguments compare only where both proposals had them (a refusal before they were built has none).
      const fields =
        differs.includes('arguments') && a.args && b.args ? fieldDiff(a.args, b.args) : undefined;
      steps.push({
        step: a.step,
        ...(a.step !== b.step ? { candidateStep: b.step } : {}),
        live: a,
        candidate: b,
        same: differs.length === 0,
        differs,
        ...(fields ? { fields } : {}),
      });
      if (b.outcome === 'refused' && a.outcome !== 'refused')
        newRefusals.push({ step: b.step, code: b.code ?? 'refused' });
      if (differs.length > 0) {
        const detail = fields?.length
          ? ` (${fields.map((f) => `${f.field}: ${JSON.stringify(f.b)} instead of ${JSON.stringify(f.a)}`).join('; ')})`
          : '';
        const onlyApproval = differs.length === 1 && differs[0] === 'approval';
        sentences.push(
          onlyApproval
            ? `${o.candidateLabel} would ${b.approval ? '' : 'not '}ask a person before ${b.tool} ${where} where ${o.liveLabel} ${a.approval ? 'did' : 'did not'} ${on}`
            : `${o.candidateLabel} would have ${what(b)} where ${o.liveLabel} ${what(a)} ${where} ${on}${detail}`,
        );
      }
    }
    // A person denied the live run here: what follows in the candidate assumed otherwise.
    if (a?.decidedBy?.decision === 'denied') {
      stoppedAt = { step: a.step, by: a.decidedBy.by };
      break;
    }
  }
  const statusSame = stoppedAt !== undefined || live.status === candidate.status;
  if (!statusSame && sentences.length === 0)
    sentences.push(
      `${o.candidateLabel} would end ${candidate.status} where ${o.liveLabel} ended ${live.status} ${on}`,
    );
  // A choice that took another branch disagrees, even where the branches happen to call alike.
  const shown = (b: number | 'else') => (b === 'else' ? 'its else' : `branch ${b + 1}`);
  const taken = new Map((candidate.branches ?? []).map((b) => [b.step, b.branch]));
  const branches = (live.branches ?? []).flatMap((b) => {
    const c = taken.get(b.step);
    return c === undefined || c === b.branch ? [] : [{ step: b.step, live: b.branch, candidate: c }];
  });
  for (const b of stoppedAt ? [] : branches)
    sentences.push(
      `${o.candidateLabel} would have taken ${shown(b.candidate)} of ${b.step} where ${o.liveLabel} took ${shown(b.live)} ${on}`,
    );
  const agree =
    statusSame && steps.every((s) => s.same) && (stoppedAt !== undefined || branches.length === 0);
  return {
    agree,
    ...(branches.length > 0 && !stoppedAt ? { branches } : {}),
    steps,
    status: { live: live.status, candidate: candidate.status, same: statusSame },
    newRefusals,
    ...(stoppedAt ? { stoppedAt } : {}),
    sentences,
  };
}
