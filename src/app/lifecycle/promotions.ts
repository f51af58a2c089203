/**
 * Promotion (docs/lifecycle.md): moving a version one step, refused unless its gate is met or a
 * person overrides it with a reason, recorded with who, when and on what evidence in the workflow's
 * hash-chained lifecycle records. Stepping a version back (a demotion) anyone may; up, only a person.
 * A version in an active rollout moves only through the rollout (rollouts.ts).
 */
import { ErrorCode, KeelError } from '../../core/errors.ts';
import { type GateReport, moveOf } from '../../core/lifecycle/index.ts';
import type { NewPromotion, Promotion, Registry } from '../../ports/index.ts';
import { type Gates, unmet } from './gates.ts';
import { type Principal, requireBy, requireHuman } from './principal.ts';
import { ROUTABLE, requireStatus, requireVersion } from './versions.ts';

export interface PromoteOptions {
  readonly version?: number;
  /** Promote past an unmet gate: the reason is recorded with who gave it. */
  readonly override?: string;
}

/** Moves a version (the newest unless `o.version`) to `to`: gated up, always down; returns the record. */
export async function promote(
  c: { readonly registry: Registry; readonly gates: Gates; readonly now: () => string },
  tenant: string,
  workflowId: string,
  to: string,
  p: Principal,
  o: PromoteOptions = {},
): Promise<{ promotion: Promotion; report: GateReport | undefined }> {
  const { registry } = c;
  const target = requireStatus(to);
  const rec = await requireVersion(registry, tenant, workflowId, o.version);
  const move = moveOf(rec.status, target);
  // Moving a version up takes a person; stepping one back (a demotion) anyone may.
  if (move.kind !== 'demote')
    requireHuman(p, o.override !== undefined ? 'override a promotion gate' : 'promote a version');
  else requireBy(p);
  if (move.kind === 'invalid')
    throw new KeelError(
      ErrorCode.usage,
      `${workflowId} v${rec.version} cannot go to ${target}: ${move.message}`,
      {
        workflowId,
        version: rec.version,
        field: 'status',
      },
    );
  const rollout = (await registry.getRollout(tenant, workflowId))?.state;
  if (rollout?.status === 'active' && (rollout.to === rec.version || rollout.from === rec.version))
    throw new KeelError(
      ErrorCode.runState,
      `${workflowId} v${rec.version} is in an active rollout (v${rollout.from} → v${rollout.to} at ${rollout.percent}%): advance it or roll it back with keel rollout`,
      { workflowId, version: rec.version },
    );
  const at = c.now();
  if (move.kind === 'demote') {
    const [record] = await registry.recordLifecycle({
      tenant,
      workflowId,
      records: [
        {
          tenant,
          workflowId,
          version: rec.version,
          from: rec.status,
          to: target,
          by: p.by,
          at,
          kind: 'demote',
        },
      ],
    });
    return { promotion: record!, report: undefined };
  }
  const report = await c.gates.report(tenant, rec, target);
  if (!report.met && o.override === undefined) throw unmet(report, `${workflowId} v${rec.version}`);
  if (o.override !== undefined && o.override.trim() === '')
    throw new KeelError(ErrorCode.usage, 'reason: an override needs the reason it is given for', {
      field: 'reason',
    });
  const records: NewPromotion[] = [
    {
      tenant,
      workflowId,
      version: rec.version,
      from: rec.status,
      to: target,
      by: p.by,
      at,
      kind: 'promote',
      evidence: report,
      ...(o.override !== undefined && !report.met ? { override: { reason: o.override } } : {}),
    },
  ];
  // A new LIVE version takes the traffic whole: the one LIVE before it steps back (recorded).
  if (target === 'LIVE')
    for (const v of await registry.listVersions(tenant, workflowId))
      if (v.version !== rec.version && ROUTABLE.includes(v.status))
        records.push({
          tenant,
          workflowId,
          version: v.version,
          from: v.status,
          to: 'DRAFT',
          by: p.by,
          at,
          kind: 'demote',
          evidence: { supersededBy: rec.version },
        });
  const [promotion] = await registry.recordLifecycle({ tenant, workflowId, records });
  return { promotion: promotion!, report };
}
