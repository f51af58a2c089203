/**
 * The OpenWOP event stream of a run is a projection of its ledger, never a second log.
 *
 * Each ledger entry maps, by itself, to zero or more OpenWOP events; `sequence` counts the events
 * from 0, so the same ledger always projects to the same stream and a prefix of the ledger to a
 * prefix of the stream. The projection is incremental (`EventProjector.push` takes the entries
 * appended since), so a live stream never projects a ledger twice. Every event remembers the
 * ledger seq it came from (`ledgerSeq`), which is how a fork point given as an event sequence
 * becomes a ledger seq. A fork's inherited entries project to its source's events, byte for byte
 * but for `runId` (`inherit`). Source draws are not projected (the values appear in the node's
 * outputs; the ledger holds the draws themselves).
 */
import type { Entry, PayloadOf } from '../core/ledger/index.ts';
import { runOwner } from './owner.ts';

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

/**
 * The code a refused step fails its node with: a person's rejection is OpenWOP's
 * `approval_rejected` (RFC 0223); any other refusal keeps Keel's code.
 */
export function refusalCode(p: PayloadOf<'step.refused'>): string {
  return p.check === 'approval' ? 'approval_rejected' : p.code;
}

/** What the projection of one entry may read from the entries before it. */
interface Context {
  readonly outputs: Record<string, unknown>;
  lastStep: string | undefined;
  readonly approvalSteps: Map<string, string>;
  /** The last node that failed or was refused, and the code it failed with. */
  failed: { readonly nodeId: string; readonly code: string } | undefined;
}

/** The entries that settle the call a `step.allowed` made. */
const SETTLES: ReadonlySet<string> = new Set([
  'step.completed',
  'step.failed',
  'step.refused',
  'step.reconciled',
]);

function started(p: PayloadOf<'step.allowed'>): Draft {
  return {
    type: 'node.started',
    nodeId: p.step,
    payload: { nodeId: p.step, typeId: p.tool, attempt: p.attempt },
  };
}

function drafts(e: Entry, cx: Context): Draft[] {
  switch (e.kind) {
    case 'run.started': {
      const p = e.payload as PayloadOf<'run.started'>;
      const transport = p.event.payload.transport;
      return [
        {
          type: 'run.started',
          payload: {
            workflowId: p.workflowId,
            inputs: (p.event.payload.inputs as Record<string, unknown> | undefined) ?? {},
            owner: runOwner(p),
            ...(typeof transport === 'string' ? { transport } : {}),
          },
        },
      ];
    }
    case 'step.allowed':
      return [started(e.payload as PayloadOf<'step.allowed'>)];
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
          // A refusal is final: retrying the node cannot change it.
          payload: { nodeId: p.step, error: { code: refusalCode(p), message: p.message, retryable: false } },
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
            // interrupt.md §Events (RFC 0183) and RFC 0223: the action taken and the decision it made.
            action,
            decision: action === 'accept' ? 'approved' : 'rejected',
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
      // A rejected approval fails the run with the gate's code (RFC 0223); failedNodeId names the
      // node whose failure ended the run.
      const f = cx.failed;
      const code = f?.code === 'approval_rejected' ? f.code : p.status === 'refused' ? 'refused' : 'failed';
      return [
        {
          type: 'run.failed',
          payload: {
            error: { code, message: p.reason ?? p.status },
            ...(f ? { failedNodeId: f.nodeId } : {}),
          },
        },
      ];
    }
    case 'run.paused': {
      const p = e.payload as PayloadOf<'run.paused'>;
      return [
        {
          type: 'run.paused',
          payload: {
            drainPolicy: p.drainPolicy,
            by: p.by,
            ...(p.reason ? { reason: p.reason } : {}),
            ...(p.interruptedNodeId !== undefined
              ? { interruptedNodeId: p.interruptedNodeId, interruptedAttempt: p.interruptedAttempt }
              : {}),
          },
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

/**
 * Projects a run's ledger into OpenWOP events as its entries arrive: `push` the entries after the
 * last one pushed, in seq order, and get the events they add. Sequences continue from the events
 * already projected.
 */
export class EventProjector {
  private readonly cx: Context = {
    outputs: {},
    lastStep: undefined,
    approvalSteps: new Map(),
    failed: undefined,
  };
  private readonly out: ProjectedEvent[] = [];
  private nextLedgerSeq = 0;
  /** The nodes whose call is allowed and not yet settled (parallel branches: several), by step. */
  private readonly inFlight = new Map<string, PayloadOf<'step.allowed'>>();
  /** A fork whose prefix ends inside nodes: the nodes it restarts, each at its first event. */
  private restart = new Map<string, PayloadOf<'step.allowed'>>();

  constructor(private readonly wireRunId: string) {}

  /** Every event projected so far, sequence from 0. */
  get events(): readonly ProjectedEvent[] {
    return this.out;
  }

  /** The ledger seq the next pushed entry must have. */
  get nextSeq(): number {
    return this.nextLedgerSeq;
  }

  /** Whether the run's terminal event has been projected. */
  get terminal(): boolean {
    const last = this.out.at(-1);
    return last !== undefined && TERMINAL_EVENT_TYPES.has(last.event.type);
  }

  /** Projects entries that continue the ledger pushed so far; returns the events they add. */
  push(entries: readonly Entry[]): ProjectedEvent[] {
    const from = this.out.length;
    for (const e of entries) {
      if (e.seq !== this.nextLedgerSeq)
        throw new Error(`projection: expected ledger seq ${this.nextLedgerSeq}, got ${e.seq}`);
      this.nextLedgerSeq++;
      this.learn(e);
      const hex = e.hash.slice('sha256:'.length);
      const ds = drafts(e, this.cx);
      const step = (e.payload as { step?: unknown }).step;
      const r = typeof step === 'string' ? this.restart.get(step) : undefined;
      if (r && ds.length > 0) {
        this.restart.delete(r.step);
        // The fork re-executes a node its prefix ended inside: it starts again (replay.md §Endpoint).
        ds.unshift(started(r));
      }
      ds.forEach((d, i) => {
        this.out.push({
          ledgerSeq: e.seq,
          event: {
            eventId: `${hex}.${i}`,
            runId: this.wireRunId,
            type: d.type,
            payload: d.payload,
            timestamp: e.at,
            sequence: this.out.length,
            schemaVersion: 1,
            ...(d.nodeId ? { nodeId: d.nodeId } : {}),
          },
        });
      });
    }
    return this.out.slice(from);
  }

  /**
   * A fork's inherited entries (its seq 0 up to its fork point): what later entries read of them
   * is learnt from the fork's own copies, but their events are the source's, `sourceEvents` (the
   * source's projection of the same entries), so the fork's events before the fork point equal
   * its source's exactly, `runId` aside. Only on an empty projector.
   */
  inherit(sourceEvents: readonly ProjectedEvent[], entries: readonly Entry[]): void {
    if (this.nextLedgerSeq !== 0) throw new Error('projection: a fork inherits before anything else');
    for (const e of entries) {
      if (e.seq !== this.nextLedgerSeq)
        throw new Error(`projection: expected ledger seq ${this.nextLedgerSeq}, got ${e.seq}`);
      this.nextLedgerSeq++;
      this.learn(e);
    }
    for (const p of sourceEvents)
      this.out.push({ ledgerSeq: p.ledgerSeq, event: { ...p.event, runId: this.wireRunId } });
    this.restart = new Map(this.inFlight);
  }

  /** What the projection of later entries reads from this one. */
  private learn(e: Entry): void {
    if (e.kind === 'step.allowed') {
      const p = e.payload as PayloadOf<'step.allowed'>;
      this.inFlight.set(p.step, p);
    } else if (SETTLES.has(e.kind)) this.inFlight.delete((e.payload as { step: string }).step);
    if (e.kind === 'step.completed') {
      const p = e.payload as PayloadOf<'step.completed'>;
      this.cx.outputs[p.step] = p.output;
      this.cx.lastStep = p.step;
      this.cx.failed = undefined;
    } else if (e.kind === 'step.failed') {
      const p = e.payload as PayloadOf<'step.failed'>;
      this.cx.failed = { nodeId: p.step, code: p.error.code };
    } else if (e.kind === 'step.refused') {
      const p = e.payload as PayloadOf<'step.refused'>;
      this.cx.failed = { nodeId: p.step, code: refusalCode(p) };
    } else if (e.kind === 'approval.requested') {
      const p = e.payload as PayloadOf<'approval.requested'>;
      this.cx.approvalSteps.set(p.proposalId, p.step);
    }
  }
}

/** Projects a run's whole ledger (or a prefix of it) into OpenWOP events, sequence from 0. */
export function projectEvents(wireRunId: string, entries: readonly Entry[]): ProjectedEvent[] {
  const p = new EventProjector(wireRunId);
  p.push(entries);
  return [...p.events];
}

/** A run's events as a response of another major names the run (`runId` is the only difference). */
export function withRunId(e: OpenWopEvent, wireRunId: string): OpenWopEvent {
  return e.runId === wireRunId ? e : { ...e, runId: wireRunId };
}

/** The error of a failed run: the last failed or refused step's code, else the run's reason. */
export function runFailure(
  entries: readonly Entry[],
  reason: string | undefined,
): { code: string; message: string } {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.kind === 'step.failed') return (e.payload as PayloadOf<'step.failed'>).error;
    if (e.kind === 'step.refused') {
      const r = e.payload as PayloadOf<'step.refused'>;
      return { code: refusalCode(r), message: r.message };
    }
  }
  return { code: 'failed', message: reason ?? 'the run failed' };
}
