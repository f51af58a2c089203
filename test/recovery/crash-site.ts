/**
 * Where the crash tests run: a crash site is a store (a SQLite file in a sandbox, or a scratch
 * PostgreSQL schema) with the effect log of the crash tools (crash-tools.ts) beside it, counted on
 * the tools' own side, and the `keel serve` processes started on it. `crashSites()` owns the
 * clean-up of a test file: at its end every server still up is SIGKILLed, every effect log closed,
 * every sandbox removed and every schema dropped.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after } from 'node:test';
import pg from 'pg';
import {
  dropSchema,
  openScratchStore,
  scratchSchemaName,
  testDatabaseUrl,
} from '../../src/adapters/postgres/index.ts';
import type { Keel } from '../../src/app/index.ts';
import { type Entry, payloadOf, type RunStatus } from '../../src/core/ledger/index.ts';
import type { Store } from '../../src/ports/index.ts';
import { Sandbox } from '../helpers/keel-cli.ts';
import { KeelServer } from '../helpers/keel-server.ts';
import { EFFECTS_TABLE, type EffectLog, effectLog } from './crash-tools.ts';

/** The crash tools as a `--tools` module. */
export const CRASH_TOOLS = join(import.meta.dirname, 'crash-tools.ts');

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `done` every `every` ms until it holds; fails the test, naming `what`, after `ms`. */
export async function until(
  what: string,
  ms: number,
  done: () => Promise<boolean>,
  every = 100,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) assert.fail(`timed out after ${ms} ms waiting until ${what}`);
    await sleep(every);
  }
}

/** How many of acme's runs have `status`. */
export async function countRuns(keel: Keel, status: RunStatus): Promise<number> {
  return (await keel.runs.list('acme', { status, limit: 1000 })).runs.length;
}

/** The times each effect happened, keyed `<tool> <idempotency key>`, as the tools counted them. */
export async function effectCalls(log: EffectLog): Promise<Map<string, number>> {
  return new Map((await log.rows()).map((r) => [`${r.tool} ${r.key}`, r.calls]));
}

/**
 * How many times the payments a run's ledger allowed really happened (`calls` from effectCalls),
 * all of them or those of one `step`: 1 when a payment happened exactly once over every attempt.
 */
export function paymentsMade(entries: readonly Entry[], calls: Map<string, number>, step?: string): number {
  return entries
    .filter((e) => e.kind === 'step.allowed')
    .map((e) => payloadOf(e, 'step.allowed'))
    .filter((a) => a.tool === 'pay' && (step === undefined || a.step === step))
    .reduce((n, a) => n + (calls.get(`pay ${a.idempotencyKey}`) ?? 0), 0);
}

export interface CrashSite {
  readonly sandbox: Sandbox;
  /** The store as `keel` is given it: the SQLite file, or the PostgreSQL URL naming its schema. */
  readonly store: string;
  /** The store as this test process opens it. */
  readonly keelStore: Store | string;
  /** Where the crash tools count their effects (CRASH_EFFECTS). */
  readonly effects: string;
  readonly log: EffectLog;
  /** `keel serve` on this store with the crash tools, then `args`; SIGKILLed at the file's end if still up. */
  serve(args?: readonly string[], env?: Readonly<Record<string, string>>): Promise<KeelServer>;
}

export function crashSites(): {
  sqlite(name: string): CrashSite;
  postgres(name: string): Promise<CrashSite>;
} {
  const servers: KeelServer[] = [];
  const sandboxes: Sandbox[] = [];
  const logs: EffectLog[] = [];
  const schemas: string[] = [];
  after(async () => {
    for (const s of servers) await s.kill9();
    for (const l of logs) await l.close();
    for (const s of sandboxes) s.remove();
    for (const s of schemas) await dropSchema(testDatabaseUrl(), s);
  });
  const site = (sandbox: Sandbox, store: string, keelStore: Store | string, effects: string): CrashSite => {
    const log = effectLog(effects);
    logs.push(log);
    return {
      sandbox,
      store,
      keelStore,
      effects,
      log,
      async serve(args = [], env = {}) {
        const s = await KeelServer.start(sandbox, ['--tools', CRASH_TOOLS, ...args], store, {
          CRASH_EFFECTS: effects,
          ...env,
        });
        servers.push(s);
        return s;
      },
    };
  };
  return {
    sqlite(name) {
      const sandbox = new Sandbox(name);
      sandboxes.push(sandbox);
      return site(sandbox, sandbox.store(), sandbox.store(), join(sandbox.dir, 'effects.db'));
    },
    async postgres(name) {
      const url = testDatabaseUrl();
      const schema = scratchSchemaName(`keel_test_${name.replaceAll('-', '_')}`);
      schemas.push(schema);
      const keelStore = await openScratchStore(url, schema);
      const u = new URL(url);
      u.searchParams.set('schema', schema);
      const c = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
      await c.connect();
      await c.query(EFFECTS_TABLE);
      await c.end();
      const sandbox = new Sandbox(`${name}-pg`);
      sandboxes.push(sandbox);
      return site(sandbox, u.toString(), keelStore, u.toString());
    },
  };
}
