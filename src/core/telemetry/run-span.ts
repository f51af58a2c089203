/**
 * The run span's parts read from a run's root (`run.started`): the trace it belongs to (the
 * caller's, from its `traceparent`, or its own), its attributes (workflow, version, status, mode,
 * writ, policy) and its links to the runs it forks, re-executes, shadows or was delegated by.
 * Pure; never copies the event's payload or any argument.
 */
import type { PayloadOf } from '../ledger/index.ts';
import type { SpanLink, SpanValue } from './projected-span.ts';
import { entrySpanId, parseTraceParent, runTraceId } from './trace-context.ts';

/** The trace a run's spans belong to: the caller's (its root's `traceparent`) or its own. */
export function runTraceOf(runId: string, root: PayloadOf<'run.started'>): string {
  if (root.traceparent !== undefined) {
    const t = parseTraceParent(root.traceparent);
    if (t.ok) return t.value.traceId;
  }
  return runTraceId(runId);
}

/** The run span's attributes as its root gives them (project-spans.ts adds how the run ended). */
export function runAttributes(runId: string, root: PayloadOf<'run.started'>): Record<string, SpanValue> {
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
  return runAttrs;
}

/** The run span's links: to the run it forks, re-executes or shadows, and to its delegating step. */
export function runLinks(root: PayloadOf<'run.started'>, traceOf: (runId: string) => string): SpanLink[] {
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
  return runLinks;
}
