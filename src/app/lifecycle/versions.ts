/**
 * The versions lifecycle actions name, read from the registry: the one asked for (not_found when
 * there is none), the one events go to now, and a status as a caller names it. Reads only.
 */
import { ErrorCode, KeelError } from '../../core/errors.ts';
import { WORKFLOW_STATUSES, type WorkflowStatus } from '../../core/spec/index.ts';
import type { Registry, VersionRecord } from '../../ports/index.ts';

/** The statuses whose versions events go to. */
export const ROUTABLE: readonly WorkflowStatus[] = ['LIVE', 'AUTONOMOUS'];

/** The version (the newest unless `v`); not_found when the tenant has none. */
export async function requireVersion(
  registry: Registry,
  tenant: string,
  workflowId: string,
  v?: number,
): Promise<VersionRecord> {
  const rec = await registry.getVersion(tenant, workflowId, v);
  if (!rec)
    throw new KeelError(ErrorCode.notFound, `workflow ${workflowId}${v ? ` v${v}` : ''} not found`, {
      workflowId,
      version: v,
    });
  return rec;
}

/** The version events go to now (the rollout's old one during a rollout), other than `except`. */
export async function liveVersion(
  registry: Registry,
  tenant: string,
  workflowId: string,
  except?: number,
): Promise<VersionRecord | undefined> {
  const rollout = (await registry.getRollout(tenant, workflowId))?.state;
  const versions = await registry.listVersions(tenant, workflowId);
  if (rollout?.status === 'active' && rollout.from !== except)
    return versions.find((v) => v.version === rollout.from);
  return versions.filter((v) => ROUTABLE.includes(v.status) && v.version !== except).at(-1);
}

/** A status as a caller gives it: one of WORKFLOW_STATUSES, or a usage error naming the field. */
export function requireStatus(to: string): WorkflowStatus {
  if (!(WORKFLOW_STATUSES as readonly string[]).includes(to))
    throw new KeelError(
      ErrorCode.usage,
      `status: expected one of ${WORKFLOW_STATUSES.join(', ')}, got ${JSON.stringify(to)}`,
      {
        field: 'status',
      },
    );
  return to as WorkflowStatus;
}
