/**
 * What `verifyCheckpoints` reports of a tenant's checkpoint chain (docs/audit.md, `keel audit
 * verify`): the chain, each checkpoint, the witnessed checkpoint, and every anomaly found, named.
 */

export type AnomalyKind =
  | 'hash-mismatch'
  | 'chain-break'
  | 'missing-entry'
  | 'merkle-mismatch'
  | 'signature-invalid'
  /** No checkpoint where one must be: the witness holds a later one, or a tenant with runs has none. */
  | 'checkpoint-missing';

export interface AuditAnomaly {
  readonly kind: AnomalyKind;
  readonly checkpoint?: number;
  readonly runId?: string;
  readonly seq?: number;
  readonly detail: string;
  /** chain-break: the previous checkpoint's hash (null before the first), and the link it carries. */
  readonly expectedPrevHash?: string | null;
  readonly actualPrevHash?: string | null;
}

export interface AuditReport {
  readonly tenant: string;
  readonly ok: boolean;
  /** The checkpoint chain holds: links, hashes, signatures (and the trusted key, if given). */
  readonly chainValid: boolean;
  /** Every checkpoint's root is the root of the heads it recorded. */
  readonly checkpointsValid: boolean;
  readonly checkpoints: readonly {
    readonly checkpoint: number;
    readonly at: string;
    readonly runs: number;
    readonly merkleRoot: string;
    readonly signature: string;
    /** Over the root's 32 bytes (OpenWOP's audit surface); absent on checkpoints made before it was. */
    readonly rootSignature?: string;
    readonly keyId: string;
    readonly verified: boolean;
  }[];
  /** Runs whose checkpointed heads were checked against their ledgers. */
  readonly runsChecked: number;
  /** Of those, runs retention removed, accepted at the head last checkpointed (their export holds them). */
  readonly retained: number;
  /** Runs created after the last checkpoint: not covered yet. */
  readonly uncovered: number;
  /** The checkpoint a witness keeps (the last the auditor holds), when one was given. */
  readonly witness?: {
    readonly checkpoint: number;
    readonly hash: string;
    /** The store's chain holds it (that very checkpoint at its seq). */
    readonly held: boolean;
    /**
     * RFC 9162 consistency proof, from the store's head log, that the head log of the store's
     * last checkpoint extends the witnessed checkpoint's; `verified` against both signed hashes.
     */
    readonly consistency?: {
      readonly fromSize: number;
      readonly toSize: number;
      readonly toCheckpoint: number;
      readonly proof: readonly string[];
      readonly verified: boolean;
    };
  };
  readonly anomalies: readonly AuditAnomaly[];
}

/** At most this many anomalies are reported (the first ones found). */
export const MAX_ANOMALIES = 100;
