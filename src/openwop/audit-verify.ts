/**
 * OpenWOP's audit-integrity verification (`GET /audit/verify`, `/v1/audit/verify`): Keel's report
 * of a tenant's signed checkpoint chain (docs/audit.md) in the closed shape of
 * `audit-verify-result.schema.json` and RFC 0218 §C. Keel's audit log is the checkpoint chain:
 * the entry at sequence n is checkpoint n, so a checkpoint's `atSequence` is its own seq and
 * consecutive checkpoints are one entry apart (the advertised `checkpointIntervalEntries: 1`).
 *
 * Each checkpoint shows its root as 64 hex digits and the signature over the root's 32 bytes,
 * which the key published in discovery verifies. A checkpoint made before Keel signed roots has
 * no such signature and is not listed (the schema requires one). Each anomaly is keyed `atSeq`
 * and carries exactly the members its kind has: a chain-break its two hashes, a merkle-mismatch or
 * signature-invalid its checkpoint; Keel's `checkpoint-missing` is OpenWOP's `missing-entry`.
 * `chainValid` is false exactly when an anomaly is listed.
 */
import type { AuditAnomaly, AuditReport } from '../app/checkpoints/index.ts';
import { ProtocolError } from './protocol-error.ts';

export interface AuditRange {
  readonly fromSeq: number;
  readonly toSeq?: number;
}

/** `fromSeq` and `toSeq` from the query: whole numbers >= 0, toSeq not below fromSeq. */
export function parseAuditRange(fromRaw: string | undefined, toRaw: string | undefined): AuditRange {
  const read = (raw: string | undefined, field: string): number | undefined => {
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n))
      throw new ProtocolError(
        'validation_error',
        `${field}: expected an integer >= 0, got ${JSON.stringify(raw)}`,
        {
          field,
        },
      );
    return n;
  };
  const fromSeq = read(fromRaw, 'fromSeq') ?? 0;
  const toSeq = read(toRaw, 'toSeq');
  if (toSeq !== undefined && toSeq < fromSeq)
    throw new ProtocolError('validation_error', `toSeq: ${toSeq} is below fromSeq ${fromSeq}`, {
      field: 'toSeq',
    });
  return toSeq === undefined ? { fromSeq } : { fromSeq, toSeq };
}

const hex = (h: string | null | undefined): string | null =>
  h === null || h === undefined ? null : h.startsWith('sha256:') ? h.slice('sha256:'.length) : h;

function anomaly(a: AuditAnomaly, fallbackSeq: number): Record<string, unknown> {
  const atSeq = a.checkpoint ?? fallbackSeq;
  const detail = { detail: a.detail };
  switch (a.kind) {
    case 'chain-break':
      return {
        atSeq,
        kind: 'chain-break',
        expectedPrevHash: hex(a.expectedPrevHash),
        actualPrevHash: hex(a.actualPrevHash) ?? '',
        ...detail,
      };
    case 'merkle-mismatch':
    case 'signature-invalid':
      return { atSeq, kind: a.kind, checkpoint: String(atSeq), ...detail };
    case 'checkpoint-missing':
      return { atSeq, kind: 'missing-entry', ...detail };
    default:
      return { atSeq, kind: a.kind, ...detail };
  }
}

/** The report over [fromSeq, toSeq] (toSeq: the last checkpoint when not given). */
export function auditVerifyResult(r: AuditReport, range: AuditRange): Record<string, unknown> {
  const lastSeq = r.checkpoints.at(-1)?.checkpoint ?? 0;
  const { fromSeq } = range;
  const toSeq = range.toSeq ?? Math.max(lastSeq, fromSeq);
  const inRange = (seq: number) => seq >= fromSeq && seq <= toSeq;
  const listed = r.checkpoints.filter((c) => inRange(c.checkpoint) && c.rootSignature);
  const anomalies = r.anomalies.map((a) => anomaly(a, lastSeq)).filter((a) => inRange(a.atSeq as number));
  return {
    fromSeq,
    toSeq,
    chainValid: anomalies.length === 0,
    checkpointsValid: listed.every((c) => c.verified),
    checkpoints: listed.map((c) => ({
      checkpoint: String(c.checkpoint),
      atSequence: c.checkpoint,
      merkleRoot: hex(c.merkleRoot),
      signature: c.rootSignature,
    })),
    anomalies,
  };
}
