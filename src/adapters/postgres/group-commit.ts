/**
 * Group commit for the PostgreSQL store: appends issued in the same turn of the event loop are
 * queued and written together — one statement (append-statement.ts), one transaction, one round
 * trip — and each append's promise settles only after that transaction committed. While a group
 * is in flight the next one gathers. If a group's statement fails as a whole, the group is written
 * again with a SAVEPOINT per append, so a bad append fails alone. It never retries an append whose
 * transaction may have committed, and never reads.
 */
import type pg from 'pg';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { Head } from '../../core/ledger/index.ts';
import type { AppendRequest } from '../../ports/index.ts';
import { checkChain } from '../shared/check-chain.ts';
import { checkBudgetChange } from '../shared/writ-budget-rows.ts';
import { appendParams, appendStatement, byRunId, splitRounds } from './append-statement.ts';
import { type PostgresTarget, unavailable } from './connection.ts';
import { isBudgetViolation, PgWritBudgets } from './writ-budgets.ts';

interface Pending {
  readonly req: AppendRequest;
  readonly resolve: (h: Head) => void;
  readonly reject: (e: unknown) => void;
}

type Outcome = { ok: true } | { ok: false; error: unknown };

export class GroupCommit {
  /** Transactions committed by appends. */
  commits = 0;
  entriesAppended = 0;
  private queue: Pending[] = [];
  private flushScheduled = false;
  private inFlight = 0;
  private drained: (() => void)[] = [];
  /** Writ chains' links and budget rows (writ-budgets.ts). */
  readonly budgets = new PgWritBudgets();

  constructor(
    private readonly pool: pg.Pool,
    private readonly target: PostgresTarget,
    /** Groups in flight at once. */
    private readonly maxInFlight: number,
  ) {}

  append(req: AppendRequest): Promise<Head> {
    try {
      checkChain(req);
      if (req.budget) checkBudgetChange(req.runId, req.budget);
    } catch (e) {
      return Promise.reject(e);
    }
    return new Promise<Head>((resolve, reject) => {
      this.queue.push({ req, resolve, reject });
      this.scheduleFlush();
    });
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.queue.length === 0 || this.inFlight >= this.maxInFlight) return;
    const group = this.queue;
    this.queue = [];
    this.inFlight++;
    void this.writeGroup(group).finally(() => {
      this.inFlight--;
      if (this.queue.length > 0) this.scheduleFlush();
      else if (this.inFlight === 0) for (const done of this.drained.splice(0)) done();
    });
  }

  /** Writes one group and settles every append in it; never rejects. */
  private async writeGroup(all: Pending[]): Promise<void> {
    const group = await this.prepareBudgets(all);
    if (group.length === 0) return;
    let outcomes: Outcome[];
    try {
      outcomes = await this.writeTogether(group);
    } catch (e) {
      if (group.length === 1) {
        group[0]!.reject(await this.failure(e, group[0]!.req, this.pool));
        return;
      }
      try {
        outcomes = await this.writeIsolated(group);
      } catch (e2) {
        const error = unavailable(e2, 'append failed on', this.target);
        for (const p of group) p.reject(error);
        return;
      }
    }
    this.commits++;
    group.forEach((p, i) => {
      const o = outcomes[i]!;
      if (!o.ok) {
        p.reject(o.error);
        return;
      }
      const last = p.req.entries[p.req.entries.length - 1]!;
      this.entriesAppended += p.req.entries.length;
      p.resolve({ seq: last.seq, hash: last.hash });
    });
  }

  /**
   * Reads the writ chain and creates the budget rows of every append that changes a writ budget
   * (once per writ and process); an append whose chain cannot be read fails alone. The rest.
   */
  private async prepareBudgets(group: Pending[]): Promise<Pending[]> {
    if (!group.some((p) => p.req.budget)) return group;
    const ready: Pending[] = [];
    for (const p of group) {
      try {
        if (p.req.budget) await this.budgets.prepare(this.pool, p.req);
        ready.push(p);
      } catch (e) {
        p.reject(e instanceof KeelError ? e : unavailable(e, 'append failed on', this.target));
      }
    }
    return ready;
  }

  /** Why an append failed: a writ budget it would overspend (read now), or appendError's reading. */
  private async failure(e: unknown, req: AppendRequest, client: pg.Pool | pg.PoolClient): Promise<unknown> {
    if (!(req.budget && isBudgetViolation(e))) return appendError(e, req, this.target);
    try {
      return await this.budgets.refusal(client, req);
    } catch (e2) {
      return unavailable(e2, 'append failed on', this.target);
    }
  }

  /** The fast path: one statement per round (usually one round), one transaction. */
  private async writeTogether(group: Pending[]): Promise<Outcome[]> {
    const rounds = splitRounds(group);
    const won = new Set<Pending>();
    const runRound = async (client: pg.Pool | pg.PoolClient, round: Pending[]) => {
      const reqs = round.map((p) => p.req);
      for (const ord of await this.appendRound(client, reqs)) won.add(round[ord]!);
    };
    if (rounds.length === 1) await runRound(this.pool, rounds[0]!);
    else
      await this.transaction(async (c) => {
        for (const round of rounds) await runRound(c, round);
      });
    return group.map((p) => (won.has(p) ? { ok: true } : { ok: false, error: conflict(p.req) }));
  }

  /** The slow path: one transaction, a savepoint per append, so a failing append fails alone. */
  private writeIsolated(group: Pending[]): Promise<Outcome[]> {
    return this.transaction(async (c) => {
      const outcomes: Outcome[] = new Array(group.length);
      // In lock order (see splitRounds); a stable sort keeps one run's appends in issue order.
      const order = [...group.keys()].sort((i, j) => byRunId(group[i]!.req, group[j]!.req) || i - j);
      for (const i of order) {
        const p = group[i]!;
        await c.query('SAVEPOINT keel_append');
        try {
          const won = (await this.appendRound(c, [p.req])).length === 1;
          await c.query('RELEASE SAVEPOINT keel_append');
          outcomes[i] = won ? { ok: true } : { ok: false, error: conflict(p.req) };
        } catch (e) {
          await c.query('ROLLBACK TO SAVEPOINT keel_append');
          outcomes[i] = { ok: false, error: await this.failure(e, p.req, c) };
        }
      }
      return outcomes;
    });
  }

  private async transaction<T>(body: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await c.query('BEGIN');
      const result = await body(c);
      await c.query('COMMIT');
      return result;
    } catch (e) {
      await c.query('ROLLBACK').catch((r: Error) => {
        broken = r;
      });
      throw e;
    } finally {
      c.release(broken);
    }
  }

  /** Runs the append statement for one round and returns the indexes (ords) of the appends that won. */
  private async appendRound(
    client: pg.Pool | pg.PoolClient,
    reqs: readonly AppendRequest[],
  ): Promise<number[]> {
    const r = await client.query<{ ord: number }>({
      ...appendStatement(this.target.notify),
      values: appendParams(reqs, Date.now(), (req) => this.budgets.statementLinks(req)),
    });
    return r.rows.map((row) => row.ord);
  }

  /** Resolves once everything queued has been written and no group is in flight. */
  drain(): Promise<void> {
    if (this.queue.length === 0 && this.inFlight === 0) return Promise.resolve();
    return new Promise<void>((done) => {
      this.drained.push(done);
      this.flush();
    });
  }
}

function conflict(req: AppendRequest): KeelError {
  const why =
    req.expectedHead === null
      ? 'the run already exists'
      : `the head is no longer seq ${req.expectedHead.seq}`;
  return new KeelError(ErrorCode.headConflict, `cannot append to run ${req.runId}: ${why}`, {
    runId: req.runId,
    expectedHead: req.expectedHead,
  });
}

/** A failed append: a taken (run, seq) is a head conflict, a broken constraint a broken invariant. */
function appendError(e: unknown, req: AppendRequest, target: PostgresTarget): KeelError {
  if (e instanceof KeelError) return e;
  const { code, constraint, detail } = e as { code?: string; constraint?: string; detail?: string };
  if (code === '23505' && (constraint === 'entries_pkey' || constraint === 'runs_run_id_key'))
    return conflict(req);
  if (code?.startsWith('23')) {
    return new KeelError(
      ErrorCode.internal,
      `append to run ${req.runId} violates ${constraint ?? 'a constraint'}${detail ? `: ${detail}` : ''}`,
      { runId: req.runId, constraint },
      { cause: e },
    );
  }
  return unavailable(e, 'append failed on', target);
}
