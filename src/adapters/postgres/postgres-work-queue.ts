/**
 * The work queue in PostgreSQL: claims (with the claimed runs' ledgers, in one statement),
 * renewals, releases and worker heartbeats, each one statement (leases.ts); wake-ups are LISTEN
 * on a dedicated connection, NOTIFYed by releases, by appends that release a running run and by
 * appends that start a wait (a new timer: workers re-arm theirs from `nextWakeAt`).
 */
import type { ClaimedRun, ClaimScope, WorkerRecord, WorkerStatus, WorkQueue } from '../../ports/index.ts';
import { checkClaimScope } from '../shared/check-claim-scope.ts';
import { unavailable } from './connection.ts';
import {
  claimWithLedgers,
  idInUse,
  LEASE_SQL,
  listenForRunnable,
  readWorkerStatus,
  toWorker,
  WORKER_ROW_TTL_MS,
} from './leases.ts';
import type { PostgresHandle } from './postgres-handle.ts';

export class PostgresWorkQueue implements WorkQueue {
  constructor(private readonly h: PostgresHandle) {}

  async claimRuns(
    owner: string,
    leaseMs: number,
    limit: number,
    now: number,
    scope?: ClaimScope,
  ): Promise<ClaimedRun[]> {
    if (limit < 1) return [];
    checkClaimScope(scope);
    try {
      const claimed = await claimWithLedgers(this.h.pool, [owner, now + leaseMs, now, limit], scope);
      this.h.commits++;
      return claimed;
    } catch (e) {
      throw unavailable(e, 'claiming runs failed on', this.h.target);
    }
  }

  async nextWakeAt(now: number): Promise<number | undefined> {
    const r = await this.h.query({ name: 'keel_next_wake', text: LEASE_SQL.nextWake, values: [now] });
    const next = r.rows[0]?.next;
    return next === null || next === undefined ? undefined : Number(next);
  }

  async renewLeases(
    owner: string,
    runIds: readonly string[],
    leaseMs: number,
    now: number,
  ): Promise<string[]> {
    const r = await this.h.write('keel_renew', LEASE_SQL.renew, [owner, runIds, now + leaseMs, now]);
    return r.rows.map((row) => row.run_id as string);
  }

  async releaseRun(owner: string, runId: string): Promise<boolean> {
    const notify = this.h.target.notify;
    const sql = notify ? LEASE_SQL.release : LEASE_SQL.releaseQuietly;
    const name = notify ? 'keel_release' : 'keel_release_quiet';
    return (await this.h.write(name, sql, [owner, runId])).rowCount === 1;
  }

  async registerWorker(w: Omit<WorkerRecord, 'seenAt'>, now: number): Promise<void> {
    const values = [w.id, w.host, w.pid, w.startedAt, now, w.leaseMs, now - WORKER_ROW_TTL_MS];
    if ((await this.h.write('keel_register', LEASE_SQL.register, values)).rowCount === 1) return;
    const prior = (await this.h.query(LEASE_SQL.worker, [w.id])).rows[0];
    throw idInUse(w.id, prior ? toWorker(prior) : { ...w, seenAt: now }, now);
  }

  async unregisterWorker(id: string): Promise<void> {
    await this.h.write('keel_unregister', LEASE_SQL.unregister, [id]);
  }

  async workerStatus(now: number): Promise<WorkerStatus> {
    try {
      return await readWorkerStatus(this.h.pool, now);
    } catch (e) {
      throw unavailable(e, 'query failed on', this.h.target);
    }
  }

  async onRunnable(listener: () => void): Promise<() => Promise<void>> {
    // `?notify=off`: nothing is ever notified, and workers rely on their poll.
    if (!this.h.target.notify) return async () => {};
    try {
      return await listenForRunnable(this.h.target, listener);
    } catch (e) {
      throw unavailable(e, 'cannot LISTEN for runnable runs on', this.h.target);
    }
  }
}
