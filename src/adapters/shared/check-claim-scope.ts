/**
 * The shape check both stores make of a claim's scope before they query: a single run is named
 * within its tenant, never across tenants; so are items of shadow work.
 */
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { ClaimScope, ShadowClaimScope } from '../../ports/index.ts';

export function checkClaimScope(scope: ClaimScope | undefined): void {
  if (scope?.runId !== undefined && scope.tenant === undefined)
    throw new KeelError(ErrorCode.internal, 'claiming one run needs its tenant', { runId: scope.runId });
}

/** Items named by id are named within their tenant, never across tenants. */
export function checkShadowClaimScope(scope: ShadowClaimScope | undefined): void {
  if (scope?.ids !== undefined && scope.tenant === undefined)
    throw new KeelError(ErrorCode.internal, 'claiming shadow work by id needs its tenant', {});
}
