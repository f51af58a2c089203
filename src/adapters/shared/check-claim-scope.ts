/**
 * The shape check both stores make of a claim's scope before they query: a single run is named
 * within its tenant, never across tenants.
 */
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { ClaimScope } from '../../ports/index.ts';

export function checkClaimScope(scope: ClaimScope | undefined): void {
  if (scope?.runId !== undefined && scope.tenant === undefined)
    throw new KeelError(ErrorCode.internal, 'claiming one run needs its tenant', { runId: scope.runId });
}
