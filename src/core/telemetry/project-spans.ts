/**
 * OpenTelemetry spans projected from one run's ledger: a run span, one span per step attempt
 * (tool, decision, refusal code, cost, attempt, approvals and model calls as span events), and
 * links for forks, attempts, children and shadows. Spans are never the truth: this is a pure
 * function of the entries (and of the linked runs' trace ids), so rebuilding from a ledger gives
 * the same spans, ids included (trace-context.ts). It never copies an argument, an output, an
 * event payload, a drawn value or a message into a span: only names, codes, counts and ids.
 */

import { parseInstant } from '../instant.ts';
import type { Entry, PayloadOf, RunStatus } from '../ledger/index.ts';
import { entrySpanId, parseTraceParent, runTraceId } from './trace-context.ts';

export type SpanValue = string | number | boolean;
export type SpanAttributes = Readonly<Record<string, SpanValue>>;

export interface SpanEvent {
  readonly name: string;
  /** Milliseconds since the epoch (entries' times have millisecond precision). */
  readonly timeMs: number;
  readonly attributes: SpanAttributes;
}

export interface SpanLink {
  readonly traceId: string;
  readonly spanId: string;
  readonly attributes: SpanAttributes;
}

export interface ProjectedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** The run span's caller (from `traceparent`), or the run span for a step span. */
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: 'internal';
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: SpanAttributes;
  readonly events: readonly SpanEvent[];
  readonly links: readonly SpanLink[];
  readonly status: { readonly code: 'unset' | 'ok' | 'error'; readonly message?: string };
}

export interface ProjectOptions {
  /**
   * The trace id of another run named by a link (a fork's source, a child, a live run a shadow
   * follows): its root's `traceparent` trace, when it had one. Default: derived from its run id.
   */
  readonly traceOf?: (runId: string) => string | undefined;
}

/** The trace a run's spans belong to: the caller's (its root's `traceparent`) or its own. */
export function runTraceOf(runId: string, root: PayloadOf<'run.started'>): string {
  if (root.traceparent !== undefined) {
    const t = parseTraceParent(root.traceparent);
    if (t.ok) return t.value.traceId;
  }
  return runTraceId(runId);
}

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

const FAILED: readonly RunStatus[] = ['failed', 'refused'];

function ms(at: string): number {
  return parseInstant(at) ?? 0;
}

/** The spans of one run's ledger (seq order, from its root); [] for a ledger without a root. */
export function projectSpans(entries: readonly Entry[], o: ProjectOptions = {}): ProjectedSpan[] {
  const first = entries[0];
  if (first?.kind !== 'run.started') return [];
  const root = first.payload as PayloadOf<'run.started'>;
  const runId = first.runId;
  const traceId = runTraceOf(runId, root);
  const traceOf = (id: string) => o.traceOf?.(id) ?? runTraceId(id);
  const runSpanId = entrySpanId(runId, 0);
  const parent = root.traceparent !== undefined ? parseTraceParent(root.traceparent) : undefined;

  const runAttrs: Record<string, SpanValue> = {
    'keel.run.id': runId,
    'keel.tenant': root.tenant,
    'keel.workflow.id': root.workflowId,
    'keel.workflow.version': root.version,
    'keel.workflow.status': root.status,
    'keel.spec_hash': root.specHash,
    'keel.event.type': root.event.type,
    'keel.engine': root.engine,
  };
  if (root.mode) runAttrs['keel.run.mode'] = root.mode;
  if (root.direct) runAttrs['keel.run.direct'] = true;
  if (root.writ) runAttrs['keel.writ'] = root.writ.hash;
  if (root.policy) runAttrs['keel.policy'] = root.policy;
  const runLinks: SpanLink[] = [];
  if (root.forkOf)
    runLinks.push({
      traceId: traceOf(root.forkOf.runId),
      spanId: entrySpanId(root.forkOf.runId, 0),
      attributes: {
        'keel.link': 'fork_of',
        'keel.fork.from_seq': root.forkOf.fromSeq,
        'keel.fork.mode': root.forkOf.mode,
      },
    });
  if (root.attemptOf)
    runLinks.push({
      traceId: traceOf(root.attemptOf),
      spanId: entrySpanId(root.attemptOf, 0),
      attributes: { 'keel.link': 'attempt_of', 'keel.attempt': root.attempt ?? 2 },
    });
  if (root.shadowOf)
    runLinks.push({
      traceId: traceOf(root.shadowOf),
      spanId: entrySpanId(root.shadowOf, 0),
      attributes: { 'keel.link': 'shadow_of' },
    });
  if (root.delegatedBy)
    runLinks.push({
      traceId: traceOf(root.delegatedBy.runId),
      spanId: entrySpanId(root.delegatedBy.runId, root.delegatedBy.seq),
      attributes: { 'keel.link': 'delegated_by', 'keel.step': root.delegatedBy.step },
    });
  const runEvents: SpanEvent[] = [];
  const runStatus: { code: 'unset' | 'ok' | 'error'; message?: string } = { code: 'unset' };

  const open = new Map<string, Building>();
  const done: Building[] = [];
  /** Each step's last closed span, for the link from a later attempt. */
  const lastOf = new Map<string, Building>();
  let modelCalls: SpanEvent[] = [];
  let cents = 0;
  let endMs: number | undefined;

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

  for (const e of entries.slice(1)) {
    const at = ms(e.at);
    switch (e.kind) {
      case 'source.drawn': {
        const p = e.payload as PayloadOf<'source.drawn'>;
        if (p.model) {
          const m = p.model;
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
        } else {
          runEvents.push({
            name: 'source.drawn',
            timeMs: at,
            attributes: {
              'keel.source': p.source,
              ...(p.name !== undefined ? { 'keel.source.name': p.name } : {}),
            },
          });
        }
        break;
      }
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
            attributes: { 'keel.link': 'previous_attempt', 'keel.attempt': before.attempt ?? p.attempt - 1 },
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
      case 'run.suspended': {
        const p = e.payload as PayloadOf<'run.suspended'>;
        const b = open.get(p.step);
        if (b && p.reason === 'outcome_unknown') b.attributes['keel.outcome'] = 'unknown';
        runEvents.push({
          name: 'run.suspended',
          timeMs: at,
          attributes: { 'keel.step': p.step, 'keel.reason': p.reason },
        });
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
      case 'run.paused': {
        const p = e.payload as PayloadOf<'run.paused'>;
        runEvents.push({
          name: 'run.paused',
          timeMs: at,
          attributes: { 'keel.by': p.by, 'keel.drain_policy': p.drainPolicy },
        });
        break;
      }
      case 'run.resumed': {
        const p = e.payload as PayloadOf<'run.resumed'>;
        runEvents.push({ name: 'run.resumed', timeMs: at, attributes: { 'keel.by': p.by } });
        break;
      }
      case 'run.finished': {
        const p = e.payload as PayloadOf<'run.finished'>;
        runAttrs['keel.run.status'] = p.status;
        if (p.code) runAttrs['keel.run.code'] = p.code;
        if (p.status === 'completed') runStatus.code = 'ok';
        else if (FAILED.includes(p.status)) {
          runStatus.code = 'error';
          runStatus.message = p.code ?? p.status;
        }
        endMs = at;
        break;
      }
      default:
        break;
    }
  }
  const lastMs = ms(entries.at(-1)!.at);
  const runEnd = endMs ?? lastMs;
  // Spans a ledger leaves open (a run waiting, suspended or unfinished) end at its last entry.
  for (const b of [...open.values()]) {
    b.attributes['keel.open'] = true;
    close(b, runEnd);
  }
  if (endMs === undefined) runAttrs['keel.run.status'] = 'unfinished';
  runAttrs['keel.cost_cents'] = cents;
  runAttrs['keel.steps'] = done.length;
  if (modelCalls.length > 0) runEvents.push(...modelCalls);

  const runSpan: ProjectedSpan = {
    traceId,
    spanId: runSpanId,
    ...(parent?.ok ? { parentSpanId: parent.value.spanId } : {}),
    name: `run ${root.workflowId}`,
    kind: 'internal',
    startMs: ms(first.at),
    endMs: runEnd,
    attributes: runAttrs,
    events: runEvents,
    links: runLinks,
    status: runStatus,
  };
  const steps = done
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
  return [runSpan, ...steps];
}
