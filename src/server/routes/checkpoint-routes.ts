/**
 * Keel API, audit integrity: the signed checkpoints of the key's tenant verified against its runs
 * (docs/audit.md), as Keel reports it. OpenWOP's audit-integrity surface shows the same report
 * (openwop-routes.ts, src/openwop/audit-verify.ts).
 */
import type { KeyObject } from 'node:crypto';
import { verifyCheckpoints } from '../../app/checkpoints/index.ts';
import type { Keel } from '../../app/index.ts';
import { type KeelRoute, ok, route } from './route.ts';

/** The key the server pins, and the checkpoint its witness keeps for the tenant (if it has one). */
export async function auditOptions(keel: Keel, tenant: string, checkpointKey: KeyObject | undefined) {
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
];
