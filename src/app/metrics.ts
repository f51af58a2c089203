/**
 * Keel's metrics in the Prometheus text format (version 0.0.4), for `GET /metrics` of `keel serve`.
 *
 * Counters are counted as this process commits (runs started, finished by status, refusals by
 * code, lease takeovers) and observed from recorded times (approval wait: the `approval.resolved`
 * entry's time minus the approval's request time, as the store holds it); figures that are the
 * store's own (queue depth, suspended runs, live leases, live workers, the shadow queue's lag) are read from the store at
 * each scrape, so they hold across every process sharing it. Labels are closed sets (statuses,
 * checks, codes Keel writes, route shapes), never an id, a tenant's data or a payload value.
 */
import { decodeEntry, type PayloadOf, type StoredEntry } from '../core/ledger/index.ts';
import type { AppendRequest, ClaimedRun, ClaimScope, Store } from '../ports/index.ts';
import type { CommitObserver } from './observed-store.ts';

type Labels = Readonly<Record<string, string>>;

/** Label sets one metric may hold; past it new ones are counted under `{other="true"}`. */
const MAX_SERIES = 500;

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labelText(l: Labels, extra = ''): string {
  const parts = Object.entries(l).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  if (extra) parts.push(extra);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

class Counter {
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  inc(labels: Labels = {}, by = 1): void {
    let key = labelText(labels);
    let l = labels;
    if (!this.values.has(key) && this.values.size >= MAX_SERIES) {
      l = { other: 'true' };
      key = labelText(l);
    }
    const v = this.values.get(key);
    if (v) v.value += by;
    else this.values.set(key, { labels: l, value: by });
  }
  get(labels: Labels = {}): number {
    return this.values.get(labelText(labels))?.value ?? 0;
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    if (this.values.size === 0) lines.push(`${this.name} 0`);
    for (const { labels, value } of this.values.values())
      lines.push(`${this.name}${labelText(labels)} ${value}`);
    return lines.join('\n');
  }
}

class Histogram {
  private readonly series = new Map<
    string,
    { labels: Labels; counts: number[]; sum: number; count: number }
  >();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[],
  ) {}
  observe(value: number, labels: Labels = {}): void {
    let key = labelText(labels);
    let l = labels;
    if (!this.series.has(key) && this.series.size >= MAX_SERIES) {
      l = { other: 'true' };
      key = labelText(l);
    }
    let s = this.series.get(key);
    if (!s) {
      s = { labels: l, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) s.counts[i]!++;
    s.sum += value;
    s.count++;
  }
  count(labels: Labels = {}): number {
    return this.series.get(labelText(labels))?.count ?? 0;
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const s of this.series.values()) {
      this.buckets.forEach((b, i) => {
        lines.push(`${this.name}_bucket${labelText(s.labels, `le="${b}"`)} ${s.counts[i]}`);
      });
      lines.push(`${this.name}_bucket${labelText(s.labels, 'le="+Inf"')} ${s.count}`);
      lines.push(`${this.name}_sum${labelText(s.labels)} ${s.sum}`);
      lines.push(`${this.name}_count${labelText(s.labels)} ${s.count}`);
    }
    return lines.join('\n');
  }
}

function gauge(name: string, help: string, value: number, labels: Labels = {}): string {
  return `# HELP ${name} ${help}\n# TYPE ${name} gauge\n${name}${labelText(labels)} ${value}`;
}

/** A refusal code as a label: Keel's codes are snake_case words; anything else is `other`. */
const codeLabel = (c: string) => (/^[a-z][a-z0-9_.]{0,63}$/.test(c) ? c : 'other');

export class KeelMetrics implements CommitObserver {
  readonly runsStarted = new Counter(
    'keel_runs_started_total',
    'Runs this process created, by mode (live, test, shadow).',
  );
  readonly runsFinished = new Counter(
    'keel_runs_finished_total',
    'Runs this process finished, by terminal status.',
  );
  readonly refusals = new Counter(
    'keel_refusals_total',
    'Proposals refused (step.refused entries this process committed), by check and code.',
  );
  readonly approvalWait = new Histogram(
    'keel_approval_wait_seconds',
    'Time from an approval request to its decision, from the recorded entry times, by decision.',
    [1, 10, 60, 300, 900, 3600, 14_400, 86_400, 604_800],
  );
  readonly leaseTakeovers = new Counter(
    'keel_lease_takeovers_total',
    'Runs this process claimed from a lease holder known to be gone (a crashed process of this host), when recovering one run.',
  );
  readonly claims = new Counter(
    'keel_runs_claimed_total',
    'Runs claimed from the queue by this process (its workers and recovery).',
  );
  readonly http = new Histogram(
    'keel_http_request_duration_seconds',
    'HTTP request latency of keel serve, by method, route shape and status class.',
    [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
  readonly unroutedKept = new Counter(
    'keel_unrouted_events_total',
    "Events kept in a tenant's unrouted inbox (no workflow took them, or a hook delivery's mapping failed), by reason; a retry of one counted again.",
  );
  readonly unroutedDropped = new Counter(
    'keel_unrouted_dropped_total',
    "Entries the unrouted inbox's limits dropped, oldest first, by limit: age (retention days) or size (entries per tenant).",
  );
  /** What the unrouted inbox tells (unrouted.ts). */
  readonly unroutedCounter = {
    kept: (reason: string) => this.unroutedKept.inc({ reason }),
    dropped: (limit: 'age' | 'size', n: number) => this.unroutedDropped.inc({ limit }, n),
  };
  readonly hookDeliveries = new Counter(
    'keel_hook_deliveries_total',
    'Deliveries to hooks (POST /hooks/<name>), by declared hook ("(unknown)" for no such hook) and outcome: accepted, redelivery, or the reason it was refused.',
  );
  /** Approval request times read before the append that resolves them, by run and proposal. */
  private readonly requested = new Map<string, string>();

  constructor(private readonly store: () => Store) {}

  async beforeClose(req: AppendRequest): Promise<void> {
    const pending = await this.store().runs.listPendingApprovals(req.tenant, req.runId);
    const p = pending.find((a) => a.proposalId === req.closeApproval);
    if (p) this.requested.set(`${req.runId}\n${p.proposalId}`, p.requestedAt);
  }

  committed(req: AppendRequest): void {
    let fromSeq = 0;
    if (req.create) {
      this.runsStarted.inc({ mode: req.create.mode ?? 'live' });
      // A fork inherits its source's entries: what they say was counted when the source committed them.
      const fork = rootOf(req.entries[0])?.forkOf;
      if (fork) fromSeq = fork.fromSeq;
    }
    for (const e of req.entries) {
      if (e.kind === 'step.refused' && e.seq >= fromSeq) {
        const p = decodeEntry(e).payload as PayloadOf<'step.refused'>;
        this.refusals.inc({ check: p.check, code: codeLabel(p.code) });
      } else if (e.kind === 'run.finished') {
        this.runsFinished.inc({ status: req.status });
      } else if (e.kind === 'approval.resolved') {
        const p = decodeEntry(e).payload as PayloadOf<'approval.resolved'>;
        const key = `${req.runId}\n${p.proposalId}`;
        const at = this.requested.get(key);
        this.requested.delete(key);
        if (at !== undefined) {
          const s = (Date.parse(e.at) - Date.parse(at)) / 1000;
          if (Number.isFinite(s) && s >= 0) this.approvalWait.observe(s, { decision: p.decision });
        }
      }
    }
  }

  claimed(owner: string, scope: ClaimScope | undefined, runs: readonly ClaimedRun[]): void {
    if (runs.length === 0) return;
    this.claims.inc({}, runs.length);
    // One run claimed with leases of gone holders counting as expired: the engine asks this only
    // after the plain claim failed, so the run was held by a holder that is gone — a takeover.
    if (scope?.runId !== undefined && (scope.takeOver ?? []).some((o) => o !== owner))
      this.leaseTakeovers.inc({}, runs.length);
  }

  /** The exposition: this process's counters, then the store's own figures read now. */
  async render(now: number): Promise<string> {
    const s = await this.store().queue.workerStatus(now);
    const q = await this.store().shadowQueue.shadowQueueStatus(now);
    const leases = s.leases.reduce((n, l) => n + l.runs, 0);
    const live = s.workers.filter((w) => s.now - w.seenAt <= w.leaseMs).length;
    return `${[
      this.runsStarted.render(),
      this.runsFinished.render(),
      this.refusals.render(),
      this.approvalWait.render(),
      this.leaseTakeovers.render(),
      this.claims.render(),
      this.http.render(),
      this.hookDeliveries.render(),
      this.unroutedKept.render(),
      this.unroutedDropped.render(),
      gauge(
        'keel_queue_depth',
        'Runs a worker could claim now (running, no live lease), across the store.',
        s.queueDepth,
      ),
      gauge(
        'keel_runs_suspended',
        'Runs suspended as outcome_unknown, waiting for reconciliation, across the store.',
        s.suspended,
      ),
      gauge('keel_leases_held', 'Live leases on running runs, across the store.', leases),
      gauge('keel_workers', 'Registered workers whose heartbeat is recent, across the store.', live),
      gauge(
        'keel_shadow_queue_waiting',
        'Shadow comparisons still to make (in the shadow queue, being made or not), across the store.',
        q.waiting + q.running,
      ),
      gauge(
        'keel_shadow_queue_oldest_seconds',
        'How long the oldest item of the shadow queue has waited, in seconds (0 when it is empty).',
        q.oldestMs === undefined ? 0 : Math.max(0, now - q.oldestMs) / 1000,
      ),
      gauge(
        'keel_shadow_queue_failed',
        'Shadow comparisons given up on after their last attempt failed (kept, until tried again), across the store.',
        q.failed,
      ),
    ].join('\n')}\n`;
  }
}

function rootOf(e: StoredEntry | undefined): PayloadOf<'run.started'> | undefined {
  return e?.seq === 0 && e.kind === 'run.started'
    ? (decodeEntry(e).payload as PayloadOf<'run.started'>)
    : undefined;
}
