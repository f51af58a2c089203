/**
 * The OpenWOP event stream of a run is a projection of its ledger, never a second log.
 *
 * Each ledger entry maps, by itself, to zero or more OpenWOP events; `sequence` counts the events
 * from 0, so the same ledger always projects to the same stream and a prefix of the ledger to a
 * prefix of the stream. Every event remembers the ledger seq it came from (`ledgerSeq`), which is
 * how a fork point given as an event sequence becomes a ledger seq. Source draws are not projected
 * (the values appear in the node's outputs; the ledger holds the draws themselves).
 */
import type { Entry, PayloadOf } from '../core/ledger/index.ts';

export interface OpenWopEvent {
  readonly eventId: string;
  readonly runId: string;
  readonly type: string;
  readonly payload: Record<string, unknown>;
  readonly timestamp: string;
  readonly sequence: number;
  readonly schemaVersion: 1;
  readonly nodeId?: string;
}

export interface ProjectedEvent {
  readonly event: OpenWopEvent;
  /** The ledger entry this event is projected from. */
  readonly ledgerSeq: number;
}

/** The event types a run ends with; the stream closes after one of them. */
export const TERMINAL_EVENT_TYPES: ReadonlySet<string> = new Set([
  'run.completed',
  'run.failed',
  'run.cancelled',
]);

interface Draft {
  readonly type: string;
  readonly payload: Record<string, unknown>;
  readonly nodeId?: string;
}

/** The last completed node's object output: the run's outputs as OpenWOP reads them (see README). */
export function runOutputs(
  outputs: Record<string, unknown>,
  lastStep: string | undefined,
): Record<string, unknown> {
  const out = lastStep === undefined ? undefined : outputs[lastStep];
  return typeof out === 'object' && out !== null && !Array.isArray(out)
    ? (out as Record<string, unknown>)
    : {};
}

/** What the projection of one entry may read from the entries before it. */
interface Context {
  readonly outputs: Record<string, unknown>;
  lastStep: string | undefined;
  readonly approvalSteps: Map<string, string>;
}

function drafts(e: Entry, cx: Context): Draft[] {
  switch (e.kind) {
    case 'run.started': {
      const p = e.payload as PayloadOf<'run.started'>;
      return [
        {
          type: 'run.started',
          payload: {
            workflowId: p.workflowId,
            inputs: (p.event.payload.inputs as Record<string, unknown> | undefined) ?? {},
            ...(p.forkOf ? { forkOf: p.forkOf } : {}),
          },
        },
      ];
    }
    case 'step.allowed': {
      const p = e.payload as PayloadOf<'step.allowed'>;
      return [
        {
          type: 'node.started',
          nodeId: p.step,
          payload: { nodeId: p.step, typeId: p.tool, attempt: p.attempt },
        },
      ];
    }
    case 'step.completed': {
      const p = e.payload as PayloadOf<'step.completed'>;
      const o = p.output;
      const out = typeof o === 'object' && o !== null && !Array.isArray(o) ? o : { value: o };
      return [{ type: 'node.completed', nodeId: p.step, payload: { nodeId: p.step, outputs: out } }];
    }
    case 'step.failed': {
      const p = e.payload as PayloadOf<'step.failed'>;
      return [{ type: 'node.failed', nodeId: p.step, payload: { nodeId: p.step, error: p.error } }];
    }
    case 'step.refused': {
      const p = e.payload as PayloadOf<'step.refused'>;
      return [
        {
          type: 'node.failed',
          nodeId: p.step,
          payload: { nodeId: p.step, error: { code: p.code, message: p.message } },
        },
      ];
    }
    case 'approval.requested': {
      const p = e.payload as PayloadOf<'approval.requested'>;
      const interrupt = {
        kind: 'approval',
        key: p.proposalId,
        data: {
          artifactId: p.proposalId,
          artifactType: 'keel.proposal',
          title: typeof p.args.title === 'string' ? p.args.title : `Approve ${p.tool}`,
          actions: ['accept', 'reject'],
          reason: p.reason,
          tool: p.tool,
          args: p.args,
        },
      };
      return [
        { type: 'node.suspended', nodeId: p.step, payload: { nodeId: p.step, reason: 'interrupt' } },
        { type: 'interrupt.requested', nodeId: p.step, payload: { nodeId: p.step, interrupt } },
        { type: 'approval.requested', nodeId: p.step, payload: { nodeId: p.step, reason: p.reason } },
      ];
    }
    case 'approval.resolved': {
      const p = e.payload as PayloadOf<'approval.resolved'>;
      const action = p.decision === 'approved' ? 'accept' : 'reject';
      const nodeId = cx.approvalSteps.get(p.proposalId) ?? '';
      return [
        {
          type: 'interrupt.resolved',
          nodeId,
          payload: {
            nodeId,
            interruptId: p.proposalId,
            kind: 'approval',
            resumeValue: { action, ...(p.note ? { feedback: p.note } : {}) },
            decidedBy: p.by,
            decidedAt: e.at,
          },
        },
      ];
    }
    case 'run.finished': {
      const p = e.payload as PayloadOf<'run.finished'>;
      if (p.status === 'completed')
        return [{ type: 'run.completed', payload: { outputs: runOutputs(cx.outputs, cx.lastStep) } }];
      if ((p.status as string) === 'cancelled')
        return [{ type: 'run.cancelled', payload: { reason: p.reason ?? 'cancelled' } }];
      return [
        {
          type: 'run.failed',
          payload: {
            error: { code: p.status === 'refused' ? 'refused' : 'failed', message: p.reason ?? p.status },
          },
        },
      ];
    }
    case 'run.paused': {
      const p = e.payload as PayloadOf<'run.paused'>;
      return [
        {
          type: 'run.paused',
          payload: { drainPolicy: p.drainPolicy, by: p.by, ...(p.reason ? { reason: p.reason } : {}) },
        },
      ];
    }
    case 'run.resumed':
      return [{ type: 'run.resumed', payload: { by: (e.payload as PayloadOf<'run.resumed'>).by } }];
    case 'run.suspended': {
      const p = e.payload as PayloadOf<'run.suspended'>;
      return [
        {
          type: 'node.suspended',
          nodeId: p.step,
          payload: { nodeId: p.step, reason: p.reason, message: p.message },
        },
      ];
    }
    default:
      return [];
  }
}

/** Projects a run's whole ledger (or a prefix of it) into OpenWOP events, sequence from 0. */
export function projectEvents(wireRunId: string, entries: readonly Entry[]): ProjectedEvent[] {
  const out: ProjectedEvent[] = [];
  const cx: Context = { outputs: {}, lastStep: undefined, approvalSteps: new Map() };
  for (const e of entries) {
    if (e.kind === 'step.completed') {
      const p = e.payload as PayloadOf<'step.completed'>;
      cx.outputs[p.step] = p.output;
      cx.lastStep = p.step;
    } else if (e.kind === 'approval.requested') {
      const p = e.payload as PayloadOf<'approval.requested'>;
      cx.approvalSteps.set(p.proposalId, p.step);
    }
    const hex = e.hash.slice('sha256:'.length);
    drafts(e, cx).forEach((d, i) => {
      out.push({
        ledgerSeq: e.seq,
        event: {
          eventId: `${hex}.${i}`,
          runId: wireRunId,
          type: d.type,
          payload: d.payload,
          timestamp: e.at,
          sequence: out.length,
          schemaVersion: 1,
          ...(d.nodeId ? { nodeId: d.nodeId } : {}),
        },
      });
    });
  }
  return out;
}
