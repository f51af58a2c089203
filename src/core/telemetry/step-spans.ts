/**
 * The step spans of a run's ledger, built entry by entry: one span per step attempt, opened by the
 * step's first entry (its allow, an approval request, a refusal) and closed by how it ended
 * (completed, failed, suppressed, refused, reconciled); approvals and the model calls drawn for the
 * step are its span events, and a later attempt links to the one before. A span is named by the seq
 * of its allow (a child run's root names the same seq). Never copies an argument or an output.
 */
import type { Entry, ModelCallEntry, PayloadOf } from '../ledger/index.ts';
import type { ProjectedSpan, SpanEvent, SpanLink, SpanValue } from './projected-span.ts';
import { entrySpanId } from './trace-context.ts';

interface Building {
  key: number;
  step: string;
  startMs: number;
  endMs?: number;
  attributes: Record<string, SpanValue>;
  events: SpanEvent[];
  links: SpanLink[];
  status: { code: 'unset' | 'ok' | 'error'; message?: string };
  proposalId?: string;
  attempt?: number;
}

export interface StepSpans {
  /** A model's draw for a slot: an event of the next step span to open. */
  modelCall(p: PayloadOf<'source.drawn'>, m: ModelCallEntry, at: number): void;
  /** Reads a step or approval entry into its step's span; entries of other kinds are not a step's. */
  read(e: Entry, at: number): void;
  /** A run suspended on a step: an unknown outcome marks that step's open span. */
  suspended(p: PayloadOf<'run.suspended'>): void;
  /**
   * Ends the spans the ledger leaves open (a run waiting, suspended or unfinished) at `runEnd`, and
   * gives every step span in seq order, the cents the steps cost, and the model calls no step span
   * took (they belong to the run span).
   */
  finish(
    runSpanId: string,
    runEnd: number,
  ): { spans: ProjectedSpan[]; cents: number; modelCalls: SpanEvent[] };
}

/** The step spans of run `runId` in trace `traceId`; `traceOf` gives a linked run's trace. */
export function stepSpans(runId: string, traceId: string, traceOf: (runId: string) => string): StepSpans {
  const open = new Map<string, Building>();
  const done: Building[] = [];
  /** Each step's last closed span, for the link from a later attempt. */
  const lastOf = new Map<string, Building>();
  let modelCalls: SpanEvent[] = [];
  let cents = 0;

  const opened = (step: string, seq: number, at: number): Building => {
    const had = open.get(step);
    if (had) return had;
    const b: Building = {
      key: seq,
      step,
      startMs: at,
      attributes: { 'keel.step': step },
      events: modelCalls,
      links: [],
      status: { code: 'unset' },
    };
    modelCalls = [];
    open.set(step, b);
    return b;
  };
  const close = (b: Building, at: number) => {
    b.endMs = at;
    open.delete(b.step);
    done.push(b);
    lastOf.set(b.step, b);
  };

  return {
    modelCall(p, m, at) {
      modelCalls.push({
        name: 'model.call',
        timeMs: at,
        attributes: {
          'keel.model.provider': m.provider,
          'keel.model.name': m.model,
          'keel.model.input_tokens': m.inputTokens,
          'keel.model.output_tokens': m.outputTokens,
          'keel.model.cost_micro_usd': m.costMicroUsd,
          'keel.model.attempts': m.attempts,
          'keel.model.valid': m.invalid === undefined,
          ...(p.name !== undefined ? { 'keel.model.slot': p.name } : {}),
        },
      });
    },
    read(e, at) {
      switch (e.kind) {
        case 'approval.requested': {
          const p = e.payload as PayloadOf<'approval.requested'>;
          const b = opened(p.step, e.seq, at);
          b.proposalId = p.proposalId;
          b.attributes['keel.tool'] = p.tool;
          b.attributes['keel.decision'] = 'require_approval';
          if (p.policy?.rule) b.attributes['keel.policy.rule'] = p.policy.rule;
          b.events.push({
            name: 'approval.requested',
            timeMs: at,
            attributes: { 'keel.approval.channel': p.channel },
          });
          break;
        }
        case 'approval.simulated': {
          const p = e.payload as PayloadOf<'approval.simulated'>;
          const b = opened(p.step, e.seq, at);
          b.proposalId = p.proposalId;
          b.attributes['keel.tool'] = p.tool;
          b.attributes['keel.decision'] = 'require_approval';
          b.events.push({
            name: 'approval.simulated',
            timeMs: at,
            attributes: { 'keel.approval.assumed': p.assumed, 'keel.approval.by': p.by },
          });
          break;
        }
        case 'approval.resolved': {
          const p = e.payload as PayloadOf<'approval.resolved'>;
          const b = [...open.values()].find((x) => x.proposalId === p.proposalId);
          if (!b) break;
          b.attributes['keel.approval.decision'] = p.decision;
          b.attributes['keel.approval.by'] = p.by;
          b.attributes['keel.approval.wait_ms'] = at - b.startMs;
          b.events.push({
            name: 'approval.resolved',
            timeMs: at,
            attributes: { 'keel.approval.decision': p.decision, 'keel.approval.by': p.by },
          });
          break;
        }
        case 'step.allowed': {
          const p = e.payload as PayloadOf<'step.allowed'>;
          const b = opened(p.step, e.seq, at);
          // A step span is named by its allow (a child's root names the same seq: delegatedBy).
          b.key = e.seq;
          b.proposalId = p.proposalId;
          b.attempt = p.attempt;
          b.attributes['keel.tool'] = p.tool;
          b.attributes['keel.decision'] = 'allow';
          b.attributes['keel.attempt'] = p.attempt;
          b.attributes['keel.cost_cents'] = p.costCents;
          b.attributes['keel.proposal_id'] = p.proposalId;
          b.attributes['keel.step.mode'] = p.mode ?? 'live';
          if (p.approvedBy) b.attributes['keel.approved_by'] = p.approvedBy;
          if (p.policy?.rule) b.attributes['keel.policy.rule'] = p.policy.rule;
          if (p.delegation)
            b.links.push({
              traceId: traceOf(p.delegation.runId),
              spanId: entrySpanId(p.delegation.runId, 0),
              attributes: { 'keel.link': 'child', 'keel.workflow.id': p.delegation.workflowId },
            });
          const before = lastOf.get(p.step);
          if (p.attempt > 1 && before)
            b.links.push({
              traceId,
              spanId: entrySpanId(runId, before.key),
              attributes: {
                'keel.link': 'previous_attempt',
                'keel.attempt': before.attempt ?? p.attempt - 1,
              },
            });
          break;
        }
        case 'step.completed': {
          const p = e.payload as PayloadOf<'step.completed'>;
          const b = opened(p.step, e.seq, at);
          b.attributes['keel.cost_cents'] = p.costCents;
          if (p.deltas?.length) b.attributes['keel.deltas'] = p.deltas.length;
          b.status = { code: 'ok' };
          cents += p.costCents;
          close(b, at);
          break;
        }
        case 'step.failed': {
          const p = e.payload as PayloadOf<'step.failed'>;
          const b = opened(p.step, e.seq, at);
          b.attributes['keel.error.code'] = p.error.code;
          b.status = { code: 'error', message: p.error.code };
          close(b, at);
          break;
        }
        case 'step.suppressed': {
          const p = e.payload as PayloadOf<'step.suppressed'>;
          const b = opened(p.step, e.seq, at);
          b.attributes['keel.tool'] = p.tool;
          b.attributes['keel.suppressed'] = true;
          close(b, at);
          break;
        }
        case 'step.refused': {
          const p = e.payload as PayloadOf<'step.refused'>;
          const b = opened(p.step, e.seq, at);
          b.attributes['keel.tool'] = p.tool;
          b.attributes['keel.decision'] =
            p.check === 'policy' && p.policy?.outcome === 'deny' ? 'deny' : 'refused';
          b.attributes['keel.refusal.check'] = p.check;
          b.attributes['keel.refusal.code'] = p.code;
          if (p.policy?.rule) b.attributes['keel.policy.rule'] = p.policy.rule;
          b.status = { code: 'error', message: `refused: ${p.code}` };
          close(b, at);
          break;
        }
        case 'step.reconciled': {
          const p = e.payload as PayloadOf<'step.reconciled'>;
          const b = opened(p.step, e.seq, at);
          b.attributes['keel.reconciled'] = p.happened ? 'happened' : 'did_not_happen';
          b.attributes['keel.reconciled.via'] = p.via;
          b.events.push({
            name: 'step.reconciled',
            timeMs: at,
            attributes: { 'keel.reconciled.happened': p.happened, 'keel.reconciled.by': p.by },
          });
          if (p.happened) b.status = { code: 'ok' };
          close(b, at);
          break;
        }
        default:
          break;
      }
    },
    suspended(p) {
      const b = open.get(p.step);
      if (b && p.reason === 'outcome_unknown') b.attributes['keel.outcome'] = 'unknown';
    },
    finish(runSpanId, runEnd) {
      for (const b of [...open.values()]) {
        b.attributes['keel.open'] = true;
        close(b, runEnd);
      }
      const spans = done
        .sort((a, b) => a.key - b.key)
        .map(
          (b): ProjectedSpan => ({
            traceId,
            spanId: entrySpanId(runId, b.key),
            parentSpanId: runSpanId,
            name: `step ${b.step}`,
            kind: 'internal',
            startMs: b.startMs,
            endMs: b.endMs ?? runEnd,
            attributes: { ...b.attributes, 'keel.seq': b.key },
            events: b.events,
            links: b.links,
            status: b.status,
          }),
        );
      return { spans, cents, modelCalls };
    },
  };
}
