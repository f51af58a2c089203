/**
 * The shadow crash test's tool pack (`--tools test/recovery/shadow-tools.ts`): every call is
 * recorded on the tools' own side in the SQLite file SHADOW_EFFECTS, one row per call. `peek` is a
 * read tool (so a shadow run calls it for real); with SHADOW_HANG=1 a call whose arguments say
 * `hang: true` never returns — the process dies inside it. `pay` may act (external, not
 * idempotent) and has a `simulate`, so only live runs ever call its handler.
 */
import Database from 'better-sqlite3';
import type { ToolDefinition } from '../../src/ports/index.ts';

export function shadowTools(effects: string, hang: boolean): ToolDefinition[] {
  const db = new Database(effects);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.exec(
    'CREATE TABLE IF NOT EXISTS calls (id INTEGER PRIMARY KEY, tool TEXT NOT NULL, args TEXT NOT NULL)',
  );
  const record = db.prepare('INSERT INTO calls (tool, args) VALUES (?, ?)');
  const base = { args: { type: 'object' }, destructive: false, scopes: [] } as const;
  return [
    {
      ...base,
      name: 'peek',
      description: 'reads an order; hangs on request',
      effect: 'read',
      idempotent: true,
      handler: (args) => {
        record.run('peek', JSON.stringify(args));
        // A call that never returns, and keeps its process alive (as a network call would).
        if (hang && args.hang === true) return new Promise(() => setInterval(() => {}, 1000));
        return { order: args.order, total: 40 };
      },
    },
    {
      ...base,
      name: 'pay',
      description: 'pays (an effect); simulated in shadows',
      effect: 'external',
      idempotent: false,
      handler: (args) => {
        record.run('pay', JSON.stringify(args));
        return { paid: args.amount };
      },
      simulate: (args) => ({ paid: args.amount, simulated: true }),
    },
  ];
}

/** The calls recorded, per tool. */
export function callsIn(effects: string): Record<string, number> {
  const db = new Database(effects, { readonly: true });
  try {
    const rows = db.prepare('SELECT tool, count(*) AS n FROM calls GROUP BY tool').all() as {
      tool: string;
      n: number;
    }[];
    return Object.fromEntries(rows.map((r) => [r.tool, r.n]));
  } finally {
    db.close();
  }
}

export default function tools(): ToolDefinition[] {
  const effects = process.env.SHADOW_EFFECTS;
  if (!effects) throw new Error('SHADOW_EFFECTS: expected the SQLite file the calls are recorded in');
  return shadowTools(effects, process.env.SHADOW_HANG === '1');
}
