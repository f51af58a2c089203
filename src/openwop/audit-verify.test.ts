/**
 * The audit report in OpenWOP's shape (RFC 0218 §C): each anomaly kind with exactly its members,
 * keyed `atSeq`; chainValid false exactly when an anomaly is listed; checkpoints with string ids
 * and no host-internal bits; the range echoed and applied; a bad range refused naming its field.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AuditReport } from '../app/checkpoints/index.ts';
import { auditVerifyResult, parseAuditRange } from './audit-verify.ts';
import { ProtocolError } from './protocol-error.ts';

const H = (c: string) => `sha256:${c.repeat(64)}`;

const checkpoint = (n: number, signed = true) => ({
  checkpoint: n,
  at: '2026-12-01T10:00:00.000Z',
  runs: 1,
  merkleRoot: H('a'),
  signature: 'c2ln',
  ...(signed ? { rootSignature: 'cm9vdA==' } : {}),
  keyId: 'k',
  verified: n !== 3,
});

const report = (anomalies: AuditReport['anomalies']): AuditReport => ({
  tenant: 'acme',
  ok: anomalies.length === 0,
  chainValid: true,
  checkpointsValid: true,
  checkpoints: [checkpoint(1), checkpoint(2), checkpoint(3), checkpoint(4, false)],
  runsChecked: 1,
  retained: 0,
  uncovered: 0,
  anomalies,
});

test('each anomaly kind carries exactly its members, keyed atSeq; chainValid is false beside them', () => {
  const r = auditVerifyResult(
    report([
      { kind: 'chain-break', checkpoint: 2, detail: 'x', expectedPrevHash: H('b'), actualPrevHash: H('c') },
      {
        kind: 'chain-break',
        checkpoint: 1,
        detail: 'genesis',
        expectedPrevHash: null,
        actualPrevHash: H('c'),
      },
      { kind: 'signature-invalid', checkpoint: 3, detail: 'another key' },
      { kind: 'merkle-mismatch', checkpoint: 3, detail: 'edited heads' },
      { kind: 'hash-mismatch', checkpoint: 2, runId: 'sha256:1', seq: 4, detail: 'edited entry' },
      { kind: 'checkpoint-missing', detail: 'the witness holds a later one' },
    ]),
    { fromSeq: 0 },
  );
  assert.equal(r.chainValid, false);
  assert.deepEqual(r.anomalies, [
    {
      atSeq: 2,
      kind: 'chain-break',
      expectedPrevHash: 'b'.repeat(64),
      actualPrevHash: 'c'.repeat(64),
      detail: 'x',
    },
    {
      atSeq: 1,
      kind: 'chain-break',
      expectedPrevHash: null,
      actualPrevHash: 'c'.repeat(64),
      detail: 'genesis',
    },
    { atSeq: 3, kind: 'signature-invalid', checkpoint: '3', detail: 'another key' },
    { atSeq: 3, kind: 'merkle-mismatch', checkpoint: '3', detail: 'edited heads' },
    { atSeq: 2, kind: 'hash-mismatch', detail: 'edited entry' },
    // Keel's own kind is OpenWOP's missing-entry, at the last checkpoint.
    { atSeq: 4, kind: 'missing-entry', detail: 'the witness holds a later one' },
  ]);
  assert.equal(r.checkpointsValid, false, 'checkpoint 3 does not verify');
});

test('a clean report: chainValid, checkpoints as the schema names them, unsigned roots left out, range applied', () => {
  const r = auditVerifyResult(report([]), { fromSeq: 2, toSeq: 10 });
  assert.equal(r.chainValid, true);
  assert.deepEqual([r.fromSeq, r.toSeq], [2, 10]);
  assert.deepEqual(r.checkpoints, [
    { checkpoint: '2', atSequence: 2, merkleRoot: 'a'.repeat(64), signature: 'cm9vdA==' },
    { checkpoint: '3', atSequence: 3, merkleRoot: 'a'.repeat(64), signature: 'cm9vdA==' },
  ]);
  assert.equal(
    auditVerifyResult(report([]), { fromSeq: 0 }).toSeq,
    4,
    'toSeq defaults to the last checkpoint',
  );
});

test('the range: whole numbers, toSeq not below fromSeq; each refusal names its field', () => {
  assert.deepEqual(parseAuditRange(undefined, undefined), { fromSeq: 0 });
  assert.deepEqual(parseAuditRange('1', '5'), { fromSeq: 1, toSeq: 5 });
  for (const [from, to, field] of [
    ['-1', undefined, 'fromSeq'],
    ['1.5', undefined, 'fromSeq'],
    ['0', 'x', 'toSeq'],
    ['5', '4', 'toSeq'],
  ] as const)
    assert.throws(
      () => parseAuditRange(from, to),
      (e: unknown) => e instanceof ProtocolError && (e.details as { field: string }).field === field,
    );
});
