/**
 * The scale-out and recovery commands: `keel worker` (claim and walk runs until SIGTERM), `keel
 * status` (workers, leases, queue), `keel recover` (continue runs a crash interrupted, now, from
 * this command) and `keel reconcile` (settle a run suspended as outcome_unknown). They print
 * like every other command (JSON with --json) and map errors through the one exit-code table;
 * the worker loop itself lives in src/worker, the decisions in the engine.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Command } from 'commander';
import pc from 'picocolors';
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { WorkerStatus } from '../ports/index.ts';
import type { WorkerEvent } from '../worker/index.ts';
import { actor, type WithContext } from './context.ts';
import { EXIT } from './exit-codes.ts';
import { intOption } from './input.ts';
import { line, printJson, statusColor } from './output.ts';

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function registerScaleOutCommands(program: Command, withContext: WithContext): void {
  program
    .command('worker')
    .description(
      'claim runnable runs from the store and walk them, renewing their leases, and work the shadow queue when no run is walked; SIGTERM stops claiming, finishes the current steps, releases the rest and exits 0',
    )
    .option('--concurrency <n>', 'runs walked at once', '8')
    .option(
      '--lease-ms <ms>',
      'how long a claim holds a run between heartbeats (renewed every third)',
      '5000',
    )
    .option('--poll-ms <ms>', 'fallback poll for claimable runs, besides wake-ups', '1000')
    .option('--id <name>', 'worker id, unique among live workers (default <host>-<pid>-<random>)')
    .option('--verbose', 'print a line for every run walked')
    .action(
      async (
        o: { concurrency: string; leaseMs: string; pollMs: string; id?: string; verbose?: boolean },
        cmd: Command,
      ) =>
        withContext(cmd, async (ctx) => {
          const host = hostname();
          const id = o.id ?? `${host}-${process.pid}-${randomBytes(2).toString('hex')}`;
          if (id.trim() === '' || id.length > 200)
            throw new KeelError(ErrorCode.usage, '--id: expected 1-200 characters', { field: 'id' });
          const { cliLogger, logWorkerEvent } = await import('./cli-logger.ts');
          const log = cliLogger('worker');
          const worker = ctx.keel.worker({
            id,
            concurrency: intOption(o.concurrency, '--concurrency', 1),
            leaseMs: intOption(o.leaseMs, '--lease-ms', 100),
            pollMs: intOption(o.pollMs, '--poll-ms', 10),
            log: (e) => logWorkerEvent(log, e, o.verbose === true),
          });
          const signalled = new Promise<string>((resolve) => {
            for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => resolve(sig));
          });
          await worker.start();
          // The shadow queue too, every tenant's, yielding to the runs this worker walks.
          const shadows = ctx.keel.lifecycle.shadowQueue.run({
            pollMs: intOption(o.pollMs, '--poll-ms', 10),
            busy: () => worker.walking > 0,
          });
          // And the schedules of every tenant (the event index lets one process start each fire).
          const { keelScheduler } = await import('../app/index.ts');
          const scheduler = keelScheduler(ctx.keel, {
            log: (e) => (e.kind === 'error' ? log.warn(e, 'schedule') : o.verbose && log.info(e, 'schedule')),
          });
          scheduler.start();
          log.info({ workerId: id, host, store: ctx.storeName }, 'worker ready');
          await signalled;
          await worker.stop();
          await shadows.stop();
          await scheduler.stop();
          const summary = { id, ...worker.stats, commits: ctx.keel.store.stats().commits };
          if (ctx.json) printJson(summary);
          else log.info(summary, 'worker summary');
          // A tool call still hanging after the grace period must not keep the process alive.
          setTimeout(() => process.exit(), 1000).unref();
          return undefined;
        }),
    );

  program
    .command('status')
    .description(
      'workers and their heartbeats, leases held, queue depth and the oldest runnable run, and the shadow queue (all tenants)',
    )
    .action(async (_o: unknown, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const s = await ctx.keel.store.queue.workerStatus(Date.now());
        const view = statusView(s, await ctx.keel.lifecycle.shadowQueue.status());
        if (ctx.json) printJson(view);
        else printStatus(view);
        return undefined;
      }),
    );

  program
    .command('recover')
    .description(
      'continue runs a crash interrupted (running, with nobody walking them) from their ledger heads: one run, or --all of the tenant; a run a live process walks is left to it (exit 4)',
    )
    .argument('[run]', 'run id')
    .option(
      '--all',
      "every such run of the tenant (a dead process's on this host at once, others once their lease expired)",
    )
    .option('--concurrency <n>', 'with --all: runs walked at once', '8')
    .action(async (runId: string | undefined, o: { all?: boolean; concurrency: string }, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        if ((runId === undefined) === (o.all !== true))
          throw new KeelError(ErrorCode.usage, 'recover: give a run id or --all (not both)', {
            field: 'run',
          });
        if (runId !== undefined) {
          const r = await ctx.keel.runs.recover(ctx.tenant, runId);
          if (ctx.json) printJson(r);
          else line(`run ${r.runId}: ${statusColor(r.status)}${r.reason ? ` (${r.reason})` : ''}`);
          return undefined;
        }
        const walked: { runId: string; status: string; ms: number }[] = [];
        let errors = 0;
        const worker = ctx.keel.worker({
          role: 'recover',
          tenant: ctx.tenant,
          concurrency: intOption(o.concurrency, '--concurrency', 1),
          log: (e) => {
            if (e.kind === 'walked') walked.push({ runId: e.runId, status: e.status, ms: e.ms });
            if (e.kind === 'error') errors++;
            if (!ctx.json && (e.kind === 'walked' || e.kind === 'error' || e.kind === 'dropped'))
              report(e, false, true, ctx.storeName);
          },
        });
        await worker.start();
        await worker.idle();
        await worker.stop();
        // Then the shadow queue: comparisons a dead process left, their shadow runs now finished.
        // Comparisons given up on after failed attempts are tried again: a person asked for it.
        const shadows = await ctx.keel.lifecycle.shadowQueue.drain({ tenant: ctx.tenant, retryFailed: true });
        const byStatus: Record<string, number> = {};
        for (const w of walked) byStatus[w.status] = (byStatus[w.status] ?? 0) + 1;
        if (ctx.json) printJson({ recovered: walked.length, byStatus, errors, runs: walked, shadows });
        else
          line(
            `recovered ${walked.length} run${walked.length === 1 ? '' : 's'}${
              walked.length > 0
                ? `: ${Object.entries(byStatus)
                    .map(([s, n]) => `${n} ${s}`)
                    .join(', ')}`
                : ''
            }${shadows.worked > 0 ? `; worked ${shadows.worked} item${shadows.worked === 1 ? '' : 's'} of the shadow queue` : ''}${shadows.retried > 0 ? ` (${shadows.retried} given up on before, tried again)` : ''}${errors > 0 ? `; ${errors} error${errors === 1 ? '' : 's'} (above)` : ''}`,
          );
        return errors > 0 ? EXIT.internal : undefined;
      }),
    );

  program
    .command('reconcile')
    .description(
      "settle a run suspended as outcome_unknown: say whether its step's effect happened (check on the tool's side), then continue the run",
    )
    .argument('<run>', 'run id')
    .option('--happened', 'the effect happened: the step completes with --output')
    .option('--did-not-happen', 'the effect did not happen: the step is proposed again as a new attempt')
    .option('--output <json>', 'with --happened: what the call returned, as JSON (default null)')
    .option('--as <name>', 'who decides (env KEEL_USER)')
    .option('--note <text>', 'a note recorded with the decision')
    .option('--enqueue', 'leave the rest of the run to a worker instead of walking it here')
    .action(
      async (
        runId: string,
        o: {
          happened?: boolean;
          didNotHappen?: boolean;
          output?: string;
          as?: string;
          note?: string;
          enqueue?: boolean;
        },
        cmd: Command,
      ) =>
        withContext(cmd, async (ctx) => {
          if (o.happened === o.didNotHappen) {
            throw new KeelError(
              ErrorCode.usage,
              'reconcile: give exactly one of --happened and --did-not-happen',
              {
                field: 'happened',
              },
            );
          }
          const by = actor(o.as);
          const r = await ctx.keel.runs.reconcile(ctx.tenant, runId, {
            happened: o.happened === true,
            ...(o.output !== undefined ? { output: parseOutput(o.output) } : {}),
            by,
            ...(o.note ? { note: o.note } : {}),
            ...(o.enqueue ? { walk: 'enqueue' as const } : {}),
          });
          if (ctx.json) printJson({ ...r, reconciledBy: by, happened: o.happened === true });
          else
            line(
              `reconciled by ${by}: the effect ${o.happened ? 'happened' : 'did not happen'}; run ${r.runId} is ${statusColor(r.status)}${r.reason ? ` (${r.reason})` : ''}`,
            );
          return undefined;
        }),
    );
}

function parseOutput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new KeelError(ErrorCode.usage, `--output: not valid JSON: ${(e as Error).message}`, {
      field: 'output',
    });
  }
}

function report(e: WorkerEvent, json: boolean, verbose: boolean, store: string): void {
  if (e.kind === 'walked' && !verbose) return;
  if (json) {
    process.stderr.write(`${JSON.stringify(e)}\n`);
    return;
  }
  const text =
    e.kind === 'started'
      ? `worker ${e.id} started on ${hostname()} pid ${process.pid}: concurrency ${e.concurrency}, lease ${e.leaseMs} ms, store ${store}`
      : e.kind === 'walked'
        ? `run ${e.runId}: ${e.status} (${e.ms} ms)`
        : e.kind === 'dropped'
          ? `dropped run ${e.runId}: ${e.reason}`
          : e.kind === 'error'
            ? `${pc.red('error')}${e.runId ? ` on run ${e.runId}` : ''}: ${e.message}`
            : `worker ${e.id} unregistered; released ${e.released} unfinished runs`;
  process.stderr.write(`${text}\n`);
}

interface StatusView extends WorkerStatus {
  /** The shadow queue's lag (docs/lifecycle.md): comparisons still to make. */
  readonly shadowQueue: {
    readonly waiting: number;
    readonly running: number;
    readonly oldestAgeMs?: number;
    readonly failed: number;
  };
  readonly workers: (WorkerStatus['workers'][number] & {
    alive: boolean;
    lastSeenMs: number;
    holding: number;
  })[];
  readonly oldestRunnable?: NonNullable<WorkerStatus['oldestRunnable']> & { ageMs: number };
}

/** The store's figures plus what a reader wants at a glance: who is alive, how old the oldest run is. */
function statusView(s: WorkerStatus, shadowQueue: StatusView['shadowQueue']): StatusView {
  const held = new Map(s.leases.map((l) => [l.owner, l.runs]));
  const { oldestRunnable: o, ...rest } = s;
  return {
    ...rest,
    shadowQueue,
    workers: s.workers.map((w) => ({
      ...w,
      alive: s.now - w.seenAt <= w.leaseMs,
      lastSeenMs: s.now - w.seenAt,
      holding: held.get(w.id) ?? 0,
    })),
    ...(o ? { oldestRunnable: { ...o, ageMs: Math.max(0, s.now - Date.parse(o.createdAt)) } } : {}),
  };
}

function printStatus(v: StatusView): void {
  const alive = v.workers.filter((w) => w.alive).length;
  line(
    `workers  ${alive} alive${v.workers.length > alive ? `, ${v.workers.length - alive} not seen within their lease` : ''}`,
  );
  for (const w of v.workers) {
    const state = w.alive ? pc.green('alive') : pc.yellow('silent');
    line(
      `  ${w.id}  ${w.host} pid ${w.pid}  ${state}, seen ${secs(w.lastSeenMs)} ago  lease ${w.leaseMs} ms  holding ${w.holding}`,
    );
  }
  const workerIds = new Set(v.workers.map((w) => w.id));
  for (const l of v.leases.filter((x) => !workerIds.has(x.owner)))
    line(`  ${l.owner}  holding ${l.runs} (not a registered worker)`);
  line(`leases   ${v.leases.reduce((n, l) => n + l.runs, 0)} running runs held`);
  const o = v.oldestRunnable;
  line(
    `queue    ${v.queueDepth} runnable${o ? `; oldest waiting ${secs(o.ageMs)}: run ${o.runId} (tenant ${o.tenant})` : ''}`,
  );
  line(
    `suspended ${v.suspended} outcome_unknown${v.suspended > 0 ? ' — see keel runs ls --status outcome_unknown, then keel reconcile' : ''}`,
  );
  if (v.timers)
    line(
      `timers   ${v.timers.waiting} runs waiting${v.timers.nextWakeAt !== undefined ? `; next due ${new Date(v.timers.nextWakeAt).toISOString()}` : ''}`,
    );
  const q = v.shadowQueue;
  line(
    `shadows  ${q.waiting} comparisons waiting, ${q.running} being made${q.oldestAgeMs !== undefined ? `; oldest queued ${secs(q.oldestAgeMs)} ago` : ''}${q.failed > 0 ? `; ${q.failed} given up on after failed attempts — keel recover --all tries them again` : ''}`,
  );
}
