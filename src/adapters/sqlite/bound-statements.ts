/**
 * Statements written with PostgreSQL's `$n` placeholders (the ones both stores share), prepared
 * once on a SQLite database and run with their values in `$n` order.
 */
import type Database from 'better-sqlite3';
import type { Row } from '../shared/row.ts';
import { sqliteStatement } from '../shared/writ-trust-rows.ts';

export interface BoundStatements<N extends string> {
  run(name: N, values: readonly unknown[]): Database.RunResult;
  all(name: N, values: readonly unknown[]): Row[];
}

export function boundStatements<N extends string>(
  db: Database.Database,
  sql: Readonly<Record<N, string>>,
): BoundStatements<N> {
  const prepared = new Map(
    Object.entries<string>(sql).map(([name, text]) => {
      const s = sqliteStatement(text);
      return [name, { st: db.prepare(s.sql), order: s.order }] as const;
    }),
  );
  const bind = (name: N, values: readonly unknown[]) => {
    const p = prepared.get(name)!;
    return { st: p.st, args: p.order.map((i) => values[i] ?? null) };
  };
  return {
    run(name, values) {
      const { st, args } = bind(name, values);
      return st.run(...args);
    },
    all(name, values) {
      const { st, args } = bind(name, values);
      return st.all(...args) as Row[];
    },
  };
}
