/**
 * Retention (docs/audit.md, "Retention"): removing a tenant's old finished runs from the store
 * once a verified export holds them, keeping what the checkpoint chain needs to go on proving
 * that they existed and what their heads were. The export directory is verified here, whole,
 * before anything is removed; a run goes only if the export holds it at its current head, every
 * run it links to goes too (or went before), and it is covered at that head by the tenant's last
 * checkpoint; the store finds it so again, in the removing transaction (one rule for both:
 * retentionRefusal, so a dry run promises exactly what the removal does). Besides the runs, the
 * tenant's arrivals (events kept for waits) go once no wait can still take them: those that arrived
 * before both the cut and the start of every unfinished run created before it, less an hour's
 * margin (ARRIVAL_MARGIN_MS). Nothing else is touched: checkpoints, versions, writs and shadow
 * comparisons stay.
 */
import { retentionRefusal } from '../core/checkpoint/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { TERMINAL_STATUSES } from '../core/ledger/index.ts';
import { type RunDirFiles, verifyRunDir } from '../core/run-dir/index.ts';
import type { RunRecord, Store } from '../ports/index.ts';

/** Slack under the arrivals' cut: a run's recorded start and its row's creation time may differ. */
export const ARRIVAL_MARGIN_MS = 3_600_000;

export interface RetentionReport {
  readonly tenant: string;
  /** The digest of the export's manifest.json, recorded with every run removed. */
  readonly manifestDigest: string;
  readonly removed: readonly string[];
  /** Runs created before the cut that stay, each with why. */
  readonly kept: readonly { readonly runId: string; readonly reason: string }[];
  readonly dryRun: boolean;
  /** Arrivals (events kept for waits) that arrived before `arrivalsBefore`: removed, or would be. */
  readonly arrivalsRemoved: number;
  readonly arrivalsBefore: string;
}

export async function retainRuns(
  store: Store,
  tenant: string,
  files: RunDirFiles,
  o: { readonly before: string; readonly dryRun?: boolean; readonly now?: () => string },
): Promise<RetentionReport> {
  const report = verifyRunDir(files);
  if (!report.ok) {
    const first = [...report.problems, ...report.runs.flatMap((r) => r.problems)][0];
    throw new KeelError(
      ErrorCode.ledgerInvalid,
      `the export does not verify${first ? ` (${first.file}${first.line ? ` line ${first.line}` : ''}: ${first.message})` : ''}: nothing was removed`,
      { field: 'dir' },
    );
  }
  if (report.tenant !== tenant)
    throw new KeelError(ErrorCode.usage, `--dir: the export is tenant ${report.tenant}'s, not ${tenant}'s`, {
      field: 'dir',
    });
  const exported = new Map(report.runs.map((r) => [r.runId, r]));
  const heads = new Map<string, { seq: number; hash: string }>();
  {
    const parsed = JSON.parse(new TextDecoder().decode(files.get('manifest.json'))) as {
      runs: { runId: string; head: string; entries: number }[];
    };
    for (const r of parsed.runs) heads.set(r.runId, { seq: r.entries - 1, hash: r.head });
  }

  // The candidates: every run created before the cut.
  const candidates: RunRecord[] = [];
  for (let cursor: string | undefined; ; ) {
    const page = await store.runs.listRuns(tenant, {
      until: o.before,
      limit: 500,
      ...(cursor ? { cursor } : {}),
    });
    candidates.push(...page.runs);
    if (!page.next) break;
    cursor = page.next;
  }
  // A wait takes only events that arrived after its run started: an arrival older than the cut
  // and than every unfinished run created before it can never be taken again.
  const unfinished = candidates
    .filter((r) => !(TERMINAL_STATUSES as readonly string[]).includes(r.status))
    .map((r) => Date.parse(r.createdAt));
  const arrivalsCut = Math.min(Date.parse(o.before), ...unfinished) - ARRIVAL_MARGIN_MS;
  const arrivals = { arrivalsBefore: new Date(arrivalsCut).toISOString() };
  const kept: { runId: string; reason: string }[] = [];
  let going = new Map<string, RunRecord>();
  for (const run of candidates) {
    // The rule the store applies again when it removes the run: a dry run promises only what it would do.
    const covered = (TERMINAL_STATUSES as readonly string[]).includes(run.status)
      ? await store.checkpoints.checkpointedHead(tenant, run.runId)
      : undefined;
    const why = retentionRefusal(run, exported.has(run.runId) ? heads.get(run.runId) : undefined, covered);
    if (why) kept.push({ runId: run.runId, reason: why });
    else going.set(run.runId, run);
  }
  // Runs of the export this store no longer holds (retained before) keep nothing here.
  const candidateIds = new Set(candidates.map((r) => r.runId));
  const absent = new Set<string>();
  for (const r of report.runs)
    if (!candidateIds.has(r.runId) && !(await store.runs.getRun(tenant, r.runId))) absent.add(r.runId);
  // Linked runs go together or not at all (a fork, attempt, shadow or child keeps its source).
  for (let changed = true; changed; ) {
    changed = false;
    const next = new Map<string, RunRecord>();
    for (const [id, run] of going) {
      const stays = exported.get(id)!.links.find((l) => !going.has(l.runId) && !absent.has(l.runId));
      const gone = stays ? await store.checkpoints.getRetainedRun(tenant, stays.runId) : undefined;
      if (stays && !gone) {
        kept.push({ runId: id, reason: `it links to run ${stays.runId} (${stays.kind}), which stays` });
        changed = true;
      } else next.set(id, run);
    }
    // A run of the export that stays keeps every run it links to.
    for (const r of report.runs)
      if (!next.has(r.runId) && !absent.has(r.runId))
        for (const l of r.links)
          if (next.delete(l.runId)) {
            kept.push({ runId: l.runId, reason: `run ${r.runId}, which stays, links to it (${l.kind})` });
            changed = true;
          }
    going = next;
  }
  const manifestDigest = report.manifestDigest!;
  if (o.dryRun)
    return {
      tenant,
      manifestDigest,
      removed: [...going.keys()],
      kept,
      dryRun: true,
      arrivalsRemoved: await store.waits.pruneArrivals(tenant, arrivalsCut, true),
      ...arrivals,
    };
  const done = await store.checkpoints.retainRuns(
    tenant,
    [...going.values()].map((r) => ({ runId: r.runId, head: r.head })),
    manifestDigest,
    (o.now ?? (() => new Date().toISOString()))(),
  );
  const arrivalsRemoved = await store.waits.pruneArrivals(tenant, arrivalsCut);
  return {
    tenant,
    manifestDigest,
    removed: done.removed,
    kept: [...kept, ...done.skipped],
    dryRun: false,
    arrivalsRemoved,
    ...arrivals,
  };
}
