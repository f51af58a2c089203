/**
 * OpenTelemetry spans projected from one run's ledger: a run span, one span per step attempt
 * (tool, decision, refusal code, cost, attempt, approvals and model calls as span events), and
 * links for forks, attempts, children and shadows. Spans are never the truth: this is a pure
 * function of the entries (and of the linked runs' trace ids), so rebuilding from a ledger gives
 * the same spans, ids included (trace-context.ts). It never copies an argument, an output, an
 * event payload, a drawn value or a message into a span: only names, codes, counts and ids.
 * The run span's parts come from its root (run-span.ts), the step spans from step-spans.ts; this
 * walks the entries once and gives each to its span.
 */

import { parseInstant } from '../instant.ts';
import type { Entry, PayloadOf, RunStatus } from '../ledger/index.ts';
import type { ProjectedSpan, ProjectOptions, SpanEvent } from './projected-span.ts';
import { runAttributes, runLinks, runTraceOf } from './run-span.ts';
import { stepSpans } from './step-spans.ts';
import { entrySpanId, parseTraceParent, runTraceId } from './trace-context.ts';

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

  const runAttrs = runAttributes(runId, root);
  const links = runLinks(root, traceOf);
  const runEvents: SpanEvent[] = [];
  const runStatus: { code: 'unset' | 'ok' | 'error'; message?: string } = { code: 'unset' };
  const steps = stepSpans(runId, traceId, traceOf);
  let endMs: number | undefined;

  for (const e of entries.slice(1)) {
    const at = ms(e.at);
    switch (e.kind) {
      case 'source.drawn': {
        const p = e.payload as PayloadOf<'source.drawn'>;
        if (p.model) steps.modelCall(p, p.model, at);
        else {
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
      case 'run.suspended': {
        const p = e.payload as PayloadOf<'run.suspended'>;
        steps.suspended(p);
        runEvents.push({
          name: 'run.suspended',
          timeMs: at,
          attributes: { 'keel.step': p.step, 'keel.reason': p.reason },
        });
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
        steps.read(e, at);
        break;
    }
  }
  const lastMs = ms(entries.at(-1)!.at);
  const runEnd = endMs ?? lastMs;
  // Spans a ledger leaves open (a run waiting, suspended or unfinished) end at its last entry.
  const { spans, cents, modelCalls } = steps.finish(runSpanId, runEnd);
  if (endMs === undefined) runAttrs['keel.run.status'] = 'unfinished';
  runAttrs['keel.cost_cents'] = cents;
  runAttrs['keel.steps'] = spans.length;
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
    links,
    status: runStatus,
  };
  return [runSpan, ...spans];
}
