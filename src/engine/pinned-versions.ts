/**
 * The versions runs are pinned to, cached by content: a (tenant, workflow, version) whose spec
 * hash matches the run's is immutable, so a worker walking thousands of runs of one version reads
 * it once. Only the spec is relied on; a cached record's `status` may be older than the store's.
 */
import type { Digest } from '../core/canonical/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { Registry, VersionRecord } from '../ports/index.ts';
import { refuseUnverified, specProblem } from './run-integrity.ts';

export class PinnedVersions {
  private readonly cache = new Map<string, VersionRecord>();

  constructor(private readonly store: Pick<Registry, 'getVersion'>) {}

  async get(
    tenant: string,
    runId: string,
    pin: { workflowId: string; version: number; specHash: Digest },
  ): Promise<VersionRecord> {
    const key = JSON.stringify([tenant, pin.workflowId, pin.version]);
    const cached = this.cache.get(key);
    if (cached?.specHash === pin.specHash) return cached;
    const v = await this.store.getVersion(tenant, pin.workflowId, pin.version);
    if (!v || v.specHash !== pin.specHash) {
      throw new KeelError(
        ErrorCode.notFound,
        `run ${runId} is pinned to ${pin.workflowId} v${pin.version} (${pin.specHash}), which is not in this store`,
        { runId, workflowId: pin.workflowId, version: pin.version },
      );
    }
    // The stored spec must still be the one published under that hash: never walk an edited spec.
    const edited = specProblem(pin, v);
    if (edited) throw refuseUnverified(runId, edited);
    if (this.cache.size >= 1000) this.cache.clear();
    this.cache.set(key, v);
    return v;
  }
}
