/**
 * A run's status from its entries, folded with constant memory: what `verify` compares with the
 * stored run row when it streams a long ledger. Agrees with `foldRun(entries).status` (a test
 * holds the two together) without keeping outputs or any other per-step state.
 */
import type { EntryKind, PayloadOf, RunStatus } from '../ledger/index.ts';

export class StatusFold {
  status: RunStatus = 'running';
  private waitingFor: string | undefined;
  /** Whether a wait is open (`wait.started` without its `wait.ended`). */
  private waiting = false;
  /** The approval requested and not yet resolved (what the pending-approvals table must hold). */
  open: PayloadOf<'approval.requested'> | undefined;

  apply(kind: EntryKind, payload: unknown): void {
    switch (kind) {
      case 'approval.requested':
        this.open = payload as PayloadOf<'approval.requested'>;
        this.waitingFor = this.open.proposalId;
        this.status = 'waiting_approval';
        break;
      case 'approval.resolved':
        if ((payload as PayloadOf<'approval.resolved'>).proposalId === this.waitingFor) {
          this.status = 'running';
          this.open = undefined;
        }
        break;
      case 'step.allowed':
        this.status = 'running';
        if ((payload as PayloadOf<'step.allowed'>).proposalId === this.waitingFor)
          this.waitingFor = undefined;
        break;
      case 'step.refused':
        if ((payload as PayloadOf<'step.refused'>).proposalId === this.waitingFor) {
          this.waitingFor = undefined;
          this.open = undefined;
        }
        break;
      case 'run.finished':
        this.status = (payload as PayloadOf<'run.finished'>).status;
        // A finished run waits for nothing (a run cancelled while waiting for an approval).
        this.waitingFor = undefined;
        this.open = undefined;
        this.waiting = false;
        break;
      case 'run.suspended':
        // A model outage holds the run as paused (resume asks again); an unknown outcome waits to be reconciled.
        this.status =
          (payload as PayloadOf<'run.suspended'>).reason === 'model_unavailable'
            ? 'paused'
            : 'outcome_unknown';
        break;
      case 'step.reconciled':
        this.status = 'running';
        break;
      case 'run.resumed':
        this.status = this.waiting ? 'waiting' : 'running';
        break;
      case 'wait.started':
        this.waiting = true;
        this.status = 'waiting';
        break;
      case 'wait.ended':
        this.waiting = false;
        this.status = 'running';
        break;
      case 'run.paused':
        this.status = 'paused';
        break;
      default:
        break;
    }
  }
}
