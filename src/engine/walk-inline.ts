/**
 * Walking a run in this process: with the effects its root calls for (run-effects.ts) and the
 * governance it is pinned to (run-admission.ts), registered among the walks this process runs,
 * holding the run's lease when it claimed it (every append of the walk renews it, and the lease
 * keeper between appends). And, after a person's decision, going on: walking now, or committing
 * the decision with the lease released and leaving the run to a worker.
 */
import type { VersionRecord } from '../ports/index.ts';
import type { EngineContext, WalkMode } from './engine-context.ts';
import { walkOptionsFor } from './run-admission.ts';
import { effectsFor } from './run-effects.ts';
import type { RunWriter } from './run-writer.ts';
import type { WalkOptions } from './walk.ts';

/** Walks the writer's run now; `leased`: this process holds the run's lease while it walks. */
export async function walkInline(
  ctx: EngineContext,
  writer: RunWriter,
  version: VersionRecord,
  leased: boolean,
  o?: WalkOptions,
): Promise<void> {
  // Every append of this walk renews the lease it holds (a worker's lease is renewed by the worker).
  if (leased) writer.leaseWith(ctx.inlineLease);
  const s = writer.state;
  const fx = await effectsFor(ctx, s.tenant, s, version);
  await ctx.walks.walk(writer, version, fx, await walkOptionsFor(ctx, s, o), leased);
}

/** After a person's decision: walk on now (holding the lease), or commit and leave it to a worker. */
export async function proceed(
  ctx: EngineContext,
  writer: RunWriter,
  version: VersionRecord,
  walk: WalkMode = ctx.walkMode,
): Promise<void> {
  if (walk === 'enqueue') {
    writer.leaseWith({ op: 'release' });
    await writer.commit();
    return;
  }
  await walkInline(ctx, writer, version, true);
}
