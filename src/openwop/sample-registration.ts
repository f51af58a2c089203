/**
 * The reference hosts' sample route, `POST /v1/host/sample/workflows {definition}`: how OpenWOP's
 * sample clients (branching-workflow) register the workflow they then run. Keel publishes the
 * definition into the caller's tenant exactly as `POST /api/workflows` publishes one — compiled to
 * a spec, as DRAFT — so its runs are simulated and nothing registered here acts outside the run
 * until a person promotes it. Publishing the same definition again creates nothing.
 */
import { compileDefinition, parseDefinition } from './definition.ts';
import type { OpenWopHost, Principal } from './host.ts';
import { isObject, validation } from './request-bodies.ts';

/** `201 {workflowId, version, status, created: true}`, or `200` with `created: false` when already there. */
export async function registerSampleWorkflow(
  host: OpenWopHost,
  p: Principal,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  if (!isObject(body)) throw validation('(body)', 'expected a JSON object');
  for (const k of Object.keys(body))
    if (k !== 'definition') throw validation(k.slice(0, 60), 'unexpected (the body is {definition})');
  if (!isObject(body.definition)) throw validation('definition', 'expected a workflow definition object');
  const spec = compileDefinition(parseDefinition(body.definition));
  // Fixtures first, as every other request of a tenant: a sample never takes a fixture's place.
  await host.ensureFixtures(p.tenant);
  const published = await host.keel.workflows.publishObject(p.tenant, spec, p.subject);
  const r = published.record;
  return {
    status: published.created ? 201 : 200,
    body: { workflowId: r.workflowId, version: r.version, status: r.status, created: published.created },
  };
}
