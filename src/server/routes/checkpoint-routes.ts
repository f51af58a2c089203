/**
 * Keel API, audit integrity: the signed checkpoints of the key's tenant verified against its runs
 * (docs/audit.md), as Keel reports it and in the shape of OpenWOP's audit-integrity surface.
 */
import type { KeyObject } from 'node:crypto';
import { type AuditReport, verifyCheckpoints } from '../../app/checkpoints/index.ts';
import type { Keel } from '../../app/index.ts';
import { type KeelRoute, ok, route } from './route.ts';

/**
 * The report in OpenWOP's words: sequences are the checkpoints'; the root as 64 hex digits and the
 * signature over its 32 bytes (RFC 0218 §A.4), which the key published in discovery verifies.
 */
function openWopAudit(r: AuditReport) {
  return {
    fromSeq: r.checkpoints[0]?.checkpoint ?? 0,
    toSeq: r.checkpoints.at(-1)?.checkpoint ?? 0,
    chainValid: r.chainValid,
    checkpointsValid: r.checkpointsValid && r.anomalies.length === 0,
    checkpoints: r.checkpoints.map((c) => ({
      checkpoint: c.checkpoint,
      atSequence: c.checkpoint,
      merkleRoot: c.merkleRoot.slice('sha256:'.length),
      signature: c.rootSignature ?? '',
      verified: c.verified,
    })),
    anomalies: r.anomalies.map((a) => ({
      atSequence: a.checkpoint ?? r.checkpoints.at(-1)?.checkpoint ?? 0,
      kind: a.kind,
      detail: a.detail,
    })),
  };
}

/** The key the server pins, and the checkpoint its witness keeps for the tenant (if it has one). */
async function auditOptions(keel: Keel, tenant: string, checkpointKey: KeyObject | undefined) {
  const w = keel.engine.witness;
  const witnessed = await w?.last(tenant);
  return {
    ...(checkpointKey ? { trustedKey: checkpointKey } : {}),
    ...(witnessed ? { witnessed } : w ? { emptyWitness: w.name } : {}),
  };
}

export const CHECKPOINT_ROUTES: readonly KeelRoute[] = [
  route({
    method: 'get',
    path: '/api/audit/verify',
    operationId: 'verifyAudit',
    summary: "Verify the tenant's signed checkpoints and every run against its checkpointed heads",
    tag: 'audit',
    auth: true,
    responses: {
      200: '{tenant, ok, chainValid, checkpointsValid, checkpoints, runsChecked, retained, uncovered, witness?, anomalies}',
    },
    async handle({ keel, p, checkpointKey }) {
      return ok(
        await verifyCheckpoints(keel.store, p.tenant, await auditOptions(keel, p.tenant, checkpointKey)),
      );
    },
  }),
  ...(['/v1/audit/verify', '/audit/verify'] as const).map((path) =>
    route({
      method: 'get',
      path,
      operationId: path.startsWith('/v1') ? 'openWopAuditVerifyV1' : 'openWopAuditVerify',
      summary: "OpenWOP's audit-integrity verification of the tenant's checkpoints",
      tag: 'audit',
      auth: true,
      responses: { 200: '{fromSeq, toSeq, chainValid, checkpointsValid, checkpoints, anomalies}' },
      async handle({ keel, p, checkpointKey }) {
        return ok(
          openWopAudit(
            await verifyCheckpoints(keel.store, p.tenant, await auditOptions(keel, p.tenant, checkpointKey)),
          ),
        );
      },
    }),
  ),
];
