/**
 * SHADOW: when an event starts a run of a workflow's LIVE (or AUTONOMOUS) version, each SHADOW
 * version of that workflow runs on the same event too, simulated, as a run linked to the live one
 * (`shadowOf`). The live run is never touched, delayed or failed by it: shadow runs start after
 * the live run was started, off its path, and a shadow that fails is reported, never thrown at the
 * live caller. At most `limit` shadow runs of a tenant run at once; past that a shadow is skipped
 * and counted, never queued. When both runs have ended, their comparison is kept (once, by the
 * shadow run's id): at the end of the shadow's walk, or later by whoever asks (the report, the
 * gate), since a comparison is a pure function of two finished ledgers.
 */
import { type EventRecord, TERMINAL_STATUSES } from '../../core/ledger/index.ts';
import { compareRuns, type EvidenceGroup, groupFindings, runDecisions } from '../../core/lifecycle/index.ts';
import type { Engine } from '../../engine/index.ts';
import type { Store, StoredComparison, VersionRecord } from '../../ports/index.ts';

/** Shadow runs a tenant may have running at once, unless configured. */
export const DEFAULT_SHADOW_LIMIT = 8;

export interface ShadowsOptions {
  readonly engine: Engine;
  readonly store: Store;
  /** ISO time now (the sources' clock). */
  readonly now: () => string;
  /** How many shadow runs the tenant may have running at once. */
  readonly limit: (tenant: string) => number;
  /** Told of a shadow that could not be started or compared; the live run is never affected. */
  readonly onError?: (e: unknown, what: { tenant: string; liveRunId: string }) => void;
}

const finished = (status: string) => (TERMINAL_STATUSES as readonly string[]).includes(status);

export class Shadows {
  private readonly pending = new Set<Promise<void>>();
  /** Shadow runs this process started and has not seen end, per tenant (with the store's count). */
  private readonly starting = new Map<string, number>();

  constructor(private readonly o: ShadowsOptions) {}

  /** Starts the SHADOW versions on the live run's event in the background; returns at once. */
  launch(
    live: { tenant: string; runId: string; status: 'LIVE' | 'AUTONOMOUS' },
    event: EventRecord,
    versions: readonly VersionRecord[],
  ): void {
    if (versions.length === 0) return;
    const p: Promise<void> = this.start(live, event, versions)
      .catch((e) => this.o.onError?.(e, { tenant: live.tenant, liveRunId: live.runId }))
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  /** Resolves once every shadow this process launched has been started (and walked, if inline). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private async start(
    live: { tenant: string; runId: string; status: 'LIVE' | 'AUTONOMOUS' },
    event: EventRecord,
    versions: readonly VersionRecord[],
  ): Promise<void> {
    const { tenant } = live;
    for (const v of versions) {
      const running =
        ((await this.o.store.countRuns(tenant, { mode: 'shadow', status: 'running' })).running ?? 0) +
        (this.starting.get(tenant) ?? 0);
      const limit = this.o.limit(tenant);
      if (running >= limit) {
        await this.o.store.recordShadowSkip({
          tenant,
          workflowId: v.workflowId,
          version: v.version,
          liveRunId: live.runId,
          reason: `${running} shadow runs of tenant ${tenant} were running (at most ${limit})`,
          at: this.o.now(),
        });
        continue;
      }
      this.starting.set(tenant, (this.starting.get(tenant) ?? 0) + 1);
      try {
        // Judged as the live version is: the comparison is of the versions' logic, at one trust level.
        const { run } = await this.o.engine.startSimulated(v, event, {
          mode: 'shadow',
          shadowOf: live.runId,
          judgedAs: live.status,
        });
        if (finished(run.status)) await this.compare(tenant, run.runId);
      } finally {
        this.starting.set(tenant, (this.starting.get(tenant) ?? 1) - 1);
      }
    }
  }

  /**
   * The comparison of a shadow run with its live run, kept once both have ended; undefined while
   * either still runs or waits. An existing comparison is returned as kept.
   */
  async compare(tenant: string, shadowRunId: string): Promise<StoredComparison | undefined> {
    const shadow = await this.o.engine.load(tenant, shadowRunId);
    const root = shadow.entries[0]!.payload as { shadowOf?: string };
    if (!root.shadowOf || !finished(shadow.state.status)) return undefined;
    const live = await this.o.engine.load(tenant, root.shadowOf);
    if (!finished(live.state.status)) return undefined;
    const comparison = compareRuns(runDecisions(live.entries), runDecisions(shadow.entries), {
      event: live.state.event,
      liveLabel: `v${live.run.version}`,
      candidateLabel: `v${shadow.run.version}`,
    });
    const c: StoredComparison = {
      tenant,
      workflowId: shadow.run.workflowId,
      shadowRunId,
      liveRunId: live.run.runId,
      shadowVersion: shadow.run.version,
      liveVersion: live.run.version,
      agree: comparison.agree,
      comparison,
      createdAt: this.o.now(),
    };
    await this.o.store.putComparison(c);
    return c;
  }

  /** Keeps the comparison of every finished shadow run of a version that has none yet. */
  async settle(tenant: string, workflowId: string, version: number): Promise<void> {
    const have = new Set(
      (await this.o.store.listComparisons(tenant, workflowId, version)).map((c) => c.shadowRunId),
    );
    for (let cursor: string | undefined; ; ) {
      const page = await this.o.store.listRuns(tenant, {
        workflowId,
        version,
        mode: 'shadow',
        limit: 500,
        ...(cursor ? { cursor } : {}),
      });
      for (const r of page.runs)
        if (!have.has(r.runId) && finished(r.status)) await this.compare(tenant, r.runId);
      if (!page.next) break;
      cursor = page.next;
    }
  }
}

export interface ShadowReport {
  readonly workflowId: string;
  readonly version: number;
  /** The live versions the shadow runs were compared with. */
  readonly against: readonly number[];
  readonly comparisons: number;
  readonly agreed: number;
  /** agreed / comparisons (0 without comparisons). */
  readonly agreement: number;
  readonly skipped: number;
  readonly newRefusals: readonly { runId: string; step: string; code: string }[];
  /** `newRefusals` grouped: each refusal at a step once, with how many shadow runs made it. */
  readonly refusalGroups: readonly EvidenceGroup[];
  readonly disagreements: readonly {
    readonly shadowRunId: string;
    readonly liveRunId: string;
    readonly liveVersion: number;
    readonly sentences: readonly string[];
  }[];
}

/** The comparisons of a shadow version (since a time), counted and read out. */
export async function shadowReport(
  shadows: Shadows,
  store: Store,
  tenant: string,
  workflowId: string,
  version: number,
  o: { since?: string; against?: number } = {},
): Promise<ShadowReport> {
  await shadows.settle(tenant, workflowId, version);
  const all = await store.listComparisons(tenant, workflowId, version, o.since ? { since: o.since } : {});
  const kept = o.against === undefined ? all : all.filter((c) => c.liveVersion === o.against);
  const agreed = kept.filter((c) => c.agree).length;
  const newRefusals = kept.flatMap((c) =>
    c.comparison.newRefusals.map((r) => ({ runId: c.shadowRunId, ...r })),
  );
  return {
    workflowId,
    version,
    against: [...new Set(kept.map((c) => c.liveVersion))].sort((a, b) => a - b),
    comparisons: kept.length,
    agreed,
    agreement: kept.length === 0 ? 0 : agreed / kept.length,
    skipped: await store.countShadowSkips(tenant, workflowId, version, o.since),
    newRefusals,
    refusalGroups: groupFindings(
      newRefusals.map((r) => ({ what: `${r.code} at step ${r.step}`, runId: r.runId })),
    ),
    disagreements: kept
      .filter((c) => !c.agree)
      .map((c) => ({
        shadowRunId: c.shadowRunId,
        liveRunId: c.liveRunId,
        liveVersion: c.liveVersion,
        sentences: c.comparison.sentences,
      })),
  };
}
