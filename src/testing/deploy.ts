/**
 * Test shortcut: publish a spec written with a target status (`status: LIVE`) the way a team
 * does it — published as DRAFT, then promoted by a named person.
 */
import type { Keel } from '../app/index.ts';

export async function deploy(keel: Keel, tenant: string, yaml: string, by = 'test-admin') {
  const status = /^status:\s*(\w+)\s*$/m.exec(yaml)?.[1] ?? 'DRAFT';
  const { record } = await keel.workflows.publish(
    tenant,
    yaml.replace(/^status:\s*\w+\s*$/m, 'status: DRAFT'),
    'test.yaml',
    by,
  );
  if (status !== 'DRAFT') await keel.workflows.promote(tenant, record.workflowId, status, by, record.version);
  return record;
}
