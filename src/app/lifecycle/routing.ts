/**
 * Routing (docs/lifecycle.md): which version of a workflow an event starts, if any. On the hot
 * path of every delivery (emit → route → start), so it does only this: reads the workflow's
 * rollout and, where the event may have started a run already (an earlier form of it, or during a
 * rollout), looks that run up. It never starts or writes anything.
 */
import type { EventRecord, SplitEntry } from '../../core/ledger/index.ts';
import { bucketKeyOf, bucketOf, DEFAULT_STICKY_BY, splitChoice } from '../../core/lifecycle/index.ts';
import { runIdFor } from '../../core/run/index.ts';
import { triggerMatches } from '../../core/spec/index.ts';
import type { Registry, RunIndex, VersionRecord } from '../../ports/index.ts';
import { ROUTABLE } from './versions.ts';

/**
 * What routing decided for one workflow: the version that takes the event (its run's id, and the
 * split during a rollout), and during a rollout a disagreement of the two versions' triggers.
 */
export interface Routing {
  readonly take?: {
    readonly version: VersionRecord;
    readonly runId: string;
    readonly split?: SplitEntry;
    /** The event started this run before (under another form, or another version of the split). */
    readonly before?: true;
  };
  readonly disagreement?: {
    readonly from: number;
    readonly to: number;
    readonly startedAt: string;
    readonly chosen: number;
    readonly taken: number | null;
  };
}

/** Routes an event for one workflow of the tenant, among its `versions` (see eventRouter). */
export type Route = (
  tenant: string,
  workflowId: string,
  versions: readonly VersionRecord[],
  event: EventRecord,
  earlier?: readonly EventRecord[],
) => Promise<Routing>;

/**
 * The router over a store's registry and run index: which version of a workflow an event starts,
 * if any — the one LIVE (or AUTONOMOUS) when its trigger takes the event, or, during a rollout, the
 * one the event's bucket chooses (by the rollout's stickiness key), or when the two versions'
 * triggers disagree on the event, the one `splitChoice` says (the disagreement is returned, for
 * the event index to count). A run the event started already under either version (a retry from
 * before the event index, or under an `earlier` form of the event) is answered as it is. Reads
 * only: nothing is started or written.
 */
export function eventRouter(registry: Registry, runs: RunIndex): Route {
  return async (tenant, workflowId, versions, event, earlier = []) => {
    const takes = (v: VersionRecord | undefined) =>
      v?.spec.triggers.some((t) => triggerMatches(t, event, workflowId)) === true;
    /** A run of `v` the event started before, under a form other than the one `v` would start now. */
    const startedBefore = async (v: VersionRecord, taken: boolean) => {
      for (const form of taken ? earlier : [event, ...earlier]) {
        const runId = runIdFor(tenant, workflowId, v.specHash, form);
        if (await runs.getRun(tenant, runId)) return runId;
      }
      return undefined;
    };
    const r = (await registry.getRollout(tenant, workflowId))?.state;
    if (r?.status !== 'active') {
      const v = versions.filter((x) => ROUTABLE.includes(x.status)).at(-1);
      if (!v || !takes(v)) return {};
      const before = earlier.length > 0 ? await startedBefore(v, true) : undefined;
      return {
        take: before
          ? { version: v, runId: before, before: true }
          : { version: v, runId: runIdFor(tenant, workflowId, v.specHash, event) },
      };
    }
    const byNumber = (n: number) => versions.find((v) => v.version === n);
    const stickyBy = r.stickyBy ?? DEFAULT_STICKY_BY;
    const bucket = bucketOf(tenant, workflowId, event, stickyBy);
    const choice = splitChoice(r, bucket, { from: takes(byNumber(r.from)), to: takes(byNumber(r.to)) });
    const split: SplitEntry = {
      bucket,
      percent: r.percent,
      from: r.from,
      to: r.to,
      stickyBy: bucketKeyOf(event, stickyBy),
      ...(choice.take !== undefined && choice.take !== choice.chosen ? { chosen: choice.chosen } : {}),
    };
    for (const n of [r.from, r.to]) {
      const v = byNumber(n);
      const before = v && (await startedBefore(v, n === choice.take));
      if (v && before) return { take: { version: v, runId: before, split, before: true } };
    }
    const disagreement = choice.disagreement && {
      from: r.from,
      to: r.to,
      startedAt: r.startedAt,
      chosen: choice.disagreement.chosen,
      taken: choice.disagreement.taken,
    };
    const v = choice.take === undefined ? undefined : byNumber(choice.take);
    return {
      ...(v ? { take: { version: v, runId: runIdFor(tenant, workflowId, v.specHash, event), split } } : {}),
      ...(disagreement ? { disagreement } : {}),
    };
  };
}
