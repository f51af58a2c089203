/**
 * Test shortcut: publish a spec written with a target status (`status: LIVE`) the way a team
 * does it — published as DRAFT — then put at that status directly in the store, recorded as a
 * fixture. It skips the promotion gates (docs/lifecycle.md) on purpose: tests of other features
 * need a LIVE version, not its evidence. The gates have tests of their own.
 */
import type { Keel } from '../app/index.ts';
import type { WorkflowStatus } from '../core/spec/index.ts';

export async function deploy(keel: Keel, tenant: string, yaml: string, by = 'test-admin') {
  const status = (/^status:\s*(\w+)\s*$/m.exec(yaml)?.[1] ?? 'DRAFT') as WorkflowStatus;
  const { record } = await keel.workflows.publish(
    tenant,
    yaml.replace(/^status:\s*\w+\s*$/m, 'status: DRAFT'),
    'test.yaml',
    by,
  );
  if (status !== 'DRAFT') await setStatus(keel, tenant, record.workflowId, record.version, status, by);
  return { ...record, status };
}

/** Puts a version at `to` in the store, past the gates, recorded as a fixture (tests only). */
export async function setStatus(
  keel: Keel,
  tenant: string,
  workflowId: string,
  version: number,
  to: WorkflowStatus,
  by = 'test-admin',
): Promise<void> {
  const rec = await keel.store.registry.getVersion(tenant, workflowId, version);
  if (!rec) throw new Error(`no ${workflowId} v${version} in tenant ${tenant}`);
  await keel.store.registry.setVersionStatus({
    tenant,
    workflowId,
    version,
    from: rec.status,
    to,
    by,
    at: new Date().toISOString(),
    kind: 'promote',
    evidence: { fixture: 'a test put this version here directly' },
  });
}
