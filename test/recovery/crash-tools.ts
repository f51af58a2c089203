/**
 * The crash tests' tool pack, loaded by `keel worker --tools test/recovery/crash-tools.ts`. Every
 * tool records each call on its OWN side — a row per (idempotency key, tool) with a call count and
 * the pids that made the calls — in the table `crash_effects` of CRASH_EFFECTS: a postgres:// URL
 * (with ?schema=) or a SQLite file. The tests count effects from there, never from the ledger.
 *
 * - `note`  idempotent: sleeps, records (a repeated key is the same effect), sleeps again;
 * - `charge` NOT idempotent: sleeps, records (the effect), sleeps again — so a kill can land
 *   before or after the effect, with the outcome unrecorded either way;
 * - `slow`  idempotent: the first call for a key hangs (SLOW_MS, default 60 s), later ones return;
 * - `pay`   NOT idempotent, like `charge`, but with a reconcile check that looks its key up in the
 *   effects table: a run interrupted inside it is settled on recovery, never suspended.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import type { ToolDefinition } from '../../src/ports/index.ts';

export const EFFECTS_TABLE = `CREATE TABLE IF NOT EXISTS crash_effects (
  key TEXT NOT NULL, tool TEXT NOT NULL, calls INTEGER NOT NULL, pids TEXT NOT NULL,
  PRIMARY KEY (key, tool))`;

export interface EffectRow {
  key: string;
  tool: string;
  calls: number;
  pids: string;
}

/** Where the effects are recorded; one table, two backends. */
export interface EffectLog {
  record(key: string, tool: string): Promise<number>;
  /** How many calls were recorded under (key, tool); 0 when none. */
  calls(key: string, tool: string): Promise<number>;
  rows(): Promise<EffectRow[]>;
  close(): Promise<void>;
}

export function effectLog(target: string): EffectLog {
  if (/^postgres(ql)?:\/\//.test(target)) {
    const u = new URL(target);
    const schema = u.searchParams.get('schema') ?? 'public';
    u.searchParams.delete('schema');
    const pool = new pg.Pool({ connectionString: u.toString(), max: 4, options: `-c search_path=${schema}` });
    pool.on('error', () => {});
    return {
      async record(key, tool) {
        const r = await pool.query<{ calls: number }>(
          `INSERT INTO crash_effects (key, tool, calls, pids) VALUES ($1, $2, 1, $3)
           ON CONFLICT (key, tool) DO UPDATE SET calls = crash_effects.calls + 1,
             pids = crash_effects.pids || ',' || EXCLUDED.pids
           RETURNING calls`,
          [key, tool, String(process.pid)],
        );
        return r.rows[0]!.calls;
      },
      async calls(key, tool) {
        const r = await pool.query<{ calls: number }>(
          'SELECT calls FROM crash_effects WHERE key = $1 AND tool = $2',
          [key, tool],
        );
        return r.rows[0]?.calls ?? 0;
      },
      rows: async () => (await pool.query<EffectRow>('SELECT * FROM crash_effects')).rows,
      close: () => pool.end(),
    };
  }
  const db = new Database(target);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.exec(EFFECTS_TABLE);
  const upsert = db.prepare(
    `INSERT INTO crash_effects (key, tool, calls, pids) VALUES (?, ?, 1, ?)
     ON CONFLICT (key, tool) DO UPDATE SET calls = calls + 1, pids = pids || ',' || excluded.pids
     RETURNING calls`,
  );
  const calls = db.prepare('SELECT calls FROM crash_effects WHERE key = ? AND tool = ?');
  return {
    record: async (key, tool) => (upsert.get(key, tool, String(process.pid)) as { calls: number }).calls,
    calls: async (key, tool) => (calls.get(key, tool) as { calls: number } | undefined)?.calls ?? 0,
    rows: async () => db.prepare('SELECT * FROM crash_effects').all() as EffectRow[],
    close: async () => {
      db.close();
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const jitter = () => 10 + Math.floor(Math.random() * 40);

export function crashTools(log: EffectLog, slowMs = 60_000): ToolDefinition[] {
  const base = { args: { type: 'object' }, destructive: false, scopes: [] } as const;
  return [
    {
      ...base,
      name: 'note',
      description: 'an idempotent write, recorded on its own side',
      effect: 'write',
      idempotent: true,
      handler: async (_a, ctx) => {
        await sleep(jitter());
        await log.record(ctx.idempotencyKey, 'note');
        await sleep(jitter());
        return { noted: ctx.step };
      },
    },
    {
      ...base,
      name: 'charge',
      description: 'a non-idempotent external effect, recorded on its own side',
      effect: 'external',
      idempotent: false,
      handler: async (_a, ctx) => {
        await sleep(jitter());
        const calls = await log.record(ctx.idempotencyKey, 'charge');
        await sleep(jitter());
        return { charged: true, calls };
      },
    },
    {
      ...base,
      name: 'pay',
      description: 'a non-idempotent external effect that can tell, by key, whether it happened',
      effect: 'external',
      idempotent: false,
      handler: async (_a, ctx) => {
        await sleep(jitter());
        const calls = await log.record(ctx.idempotencyKey, 'pay');
        await sleep(jitter());
        return { paid: true, calls };
      },
      reconcile: async (_a, ctx) => {
        const calls = await log.calls(ctx.idempotencyKey, 'pay');
        return calls > 0 ? { happened: true, output: { paid: true, calls } } : { happened: false };
      },
    },
    {
      ...base,
      name: 'slow',
      description: 'idempotent; its first call for a key hangs',
      effect: 'write',
      idempotent: true,
      handler: async (_a, ctx) => {
        const calls = await log.record(ctx.idempotencyKey, 'slow');
        if (calls === 1) await sleep(slowMs);
        return { slow: calls };
      },
    },
  ];
}

/** The pack as `--tools` loads it: configured by CRASH_EFFECTS (and SLOW_MS). */
export default function tools(): ToolDefinition[] {
  const target = process.env.CRASH_EFFECTS;
  if (!target)
    throw new Error('CRASH_EFFECTS: expected a postgres:// URL or a SQLite file for the effects table');
  return crashTools(effectLog(target), Number(process.env.SLOW_MS ?? 60_000));
}
