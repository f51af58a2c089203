/**
 * `GET /runs/{runId}/effects`: the run's tool calls as OpenWOP effect records, projected from its
 * ledger. Each allowed call is claimed under the idempotency key the tool received (the key is
 * derived from run, step and attempt: the `activity` keying), and its state follows the ledger:
 * completed when its outcome is recorded, released when it failed or was found not to have
 * happened, escaped while a crash left its outcome unknown (the run is suspended for
 * reconciliation), claimed while it is in flight.
 */
import type { Entry, PayloadOf } from '../core/ledger/index.ts';

export type EffectState = 'claimed' | 'completed' | 'released' | 'escaped';

export interface EffectRecord {
  readonly effectId: string;
  readonly nodeId: string;
  readonly attempt: number;
  readonly keying: 'activity';
  readonly state: EffectState;
  /** When the effect reached its current state (the entry's time). */
  readonly at: string;
  /** The idempotency key the tool was given: what a provider deduplicates on. */
  readonly providerKey: string;
}

export function projectEffects(entries: readonly Entry[]): EffectRecord[] {
  const byProposal = new Map<string, { -readonly [K in keyof EffectRecord]: EffectRecord[K] }>();
  const settle = (proposalId: string, state: EffectState, at: string) => {
    const e = byProposal.get(proposalId);
    if (e) {
      e.state = state;
      e.at = at;
    }
  };
  for (const e of entries) {
    switch (e.kind) {
      case 'step.allowed': {
        const p = e.payload as PayloadOf<'step.allowed'>;
        const hex = p.idempotencyKey.slice('sha256:'.length);
        byProposal.set(p.proposalId, {
          effectId: `eff.${hex}`,
          nodeId: p.step,
          attempt: p.attempt,
          keying: 'activity',
          state: 'claimed',
          at: e.at,
          providerKey: p.idempotencyKey,
        });
        break;
      }
      case 'step.completed':
        settle((e.payload as PayloadOf<'step.completed'>).proposalId, 'completed', e.at);
        break;
      case 'step.failed':
        settle((e.payload as PayloadOf<'step.failed'>).proposalId, 'released', e.at);
        break;
      case 'run.suspended': {
        // A model outage suspends before any call: nothing to settle.
        const p = e.payload as PayloadOf<'run.suspended'>;
        if (p.reason === 'outcome_unknown') settle(p.proposalId, 'escaped', e.at);
        break;
      }
      case 'step.reconciled': {
        const p = e.payload as PayloadOf<'step.reconciled'>;
        settle(p.proposalId, p.happened ? 'completed' : 'released', e.at);
        break;
      }
      default:
        break;
    }
  }
  return [...byProposal.values()];
}
