/**
 * The one connection object of a PostgreSQL store, shared by all its ports: the pool, the target
 * (schema, notify), the group commit its appends go through (group-commit.ts), a second pool for
 * event claims that need not wait for the WAL flush (opened on first use), and the count of
 * commits other than appends'. Every statement is reported, on failure, with the server it ran on.
 * It never holds state another process could contradict: every answer comes from the database.
 */
import type pg from 'pg';
import type { Row } from '../shared/row.ts';
import { createPool, type PostgresTarget, unavailable } from './connection.ts';
import { GroupCommit } from './group-commit.ts';

export class PostgresHandle {
  readonly writer: GroupCommit;
  /** Commits other than appends' (publishing, promotions, claims...). */
  commits = 0;
  /** Set once `close` began: appends and new listeners are refused. */
  closing: Promise<void> | undefined;
  private lazy: pg.Pool | undefined;

  constructor(
    readonly pool: pg.Pool,
    readonly target: PostgresTarget,
    maxInFlight: number,
  ) {
    this.writer = new GroupCommit(pool, target, maxInFlight);
  }

  /** Connections committing without waiting for the WAL flush, for event claims (postgres-event-index.ts). */
  lazyPool(): pg.Pool {
    this.lazy ??= createPool(this.target, { poolSize: 4, asyncCommit: true });
    return this.lazy;
  }

  async query(text: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult<Row>> {
    try {
      return await this.pool.query<Row>(text as string, values);
    } catch (e) {
      throw unavailable(e, 'query failed on', this.target);
    }
  }

  /** A write statement outside the append path: counted as a commit once it succeeded. */
  async write(name: string, text: string, values: unknown[]): Promise<pg.QueryResult<Row>> {
    const r = await this.query({ name, text, values });
    this.commits++;
    return r;
  }

  /** A pooled client for one transaction of `what` (`fn` begins and ends it); failures name the store. */
  async withTransaction<T>(what: string, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw unavailable(e, 'cannot connect to PostgreSQL at', this.target);
    }
    try {
      const r = await fn(client);
      this.commits++;
      return r;
    } catch (e) {
      throw unavailable(e, `${what} failed on`, this.target);
    } finally {
      client.release();
    }
  }

  /** Writes what is queued, waits for groups in flight, then closes the pools (after `before`). */
  close(before: () => Promise<void>): Promise<void> {
    this.closing ??= (async () => {
      await this.writer.drain();
      await before();
      await this.lazy?.end();
      await this.pool.end();
    })();
    return this.closing;
  }
}
