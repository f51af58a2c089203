/**
 * The run commands: `keel emit` (an event, running every workflow it triggers), `keel run` (one
 * workflow directly), `keel runs ls | show`, `keel history` (the ledger in plain language),
 * `keel verify` and `keel replay` (exit 5 on tampering or divergence), `keel fork` and
 * `keel rerun` (new runs linked to an earlier one; the original is never changed). A branch fork
 * and a rerun call tools for real, so they first say which and ask (live-effects.ts), unless --yes;
 * so does `keel run --live` of a version not yet LIVE, which otherwise runs simulated.
 */
import { type Command, Option } from 'commander';
import pc from 'picocolors';
import type { RunSummary } from '../app/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { flagOrEnv, type WithContext } from './context.ts';
import { CLI_CHANNEL } from './event-commands.ts';
import { EXIT } from './exit-codes.ts';
import { intOption, readJson } from './input.ts';
import { chainText } from './lifecycle-output.ts';
import { confirmLiveEffects, livePlan, versionPlan } from './live-effects.ts';
import { line, printHistory, printJson, statusColor, verifyText } from './output.ts';
import { registerRunsLs } from './runs-ls-command.ts';

/** --writ: its chain, read when the command runs (writ files are checked with the writ schema). */
async function writOf(file: string | undefined): Promise<{ writ?: { chain: readonly unknown[] } }> {
  return file === undefined ? {} : (await import('./governance-options.ts')).writOption(file);
}

/**
 * After printing: a run the model provider held (paused, `model_unavailable`) makes the command fail
 * with exit 6 (docs/models.md), naming the run and how to go on — `keel resume` once the provider
 * is back. The run itself is kept, resumable; nothing of the held step acted.
 */
export function refuseIfHeldByModel(runs: readonly RunSummary[]): void {
  const held = runs.filter((r) => r.code === ErrorCode.modelUnavailable);
  if (held.length === 0) return;
  const first = held[0]!;
  throw new KeelError(
    ErrorCode.modelUnavailable,
    `run ${first.runId} is paused: ${first.reason ?? 'the model provider could not answer'}; resume it with \`keel resume ${first.runId}\` once the provider is back${held.length > 1 ? ` (+${held.length - 1} more runs held)` : ''}`,
    { runId: first.runId, runs: held.map((r) => r.runId) },
  );
}

export function registerRunCommands(program: Command, withContext: WithContext): void {
  program
    .command('emit')
    .description(
      'ingest an event (JSON file, or - for stdin) and run every workflow it triggers; the same (source, id) again answers its first runs (source cli when it gives none)',
    )
    .argument('<event>', 'event file')
    .option('--enqueue', 'create the runs and leave them to `keel worker` processes')
    .option('--writ <file>', 'run under this writ file (the chain `keel writs issue | attenuate` wrote)')
    .action(async (file: string, o: { enqueue?: boolean; writ?: string }, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const r = await ctx.keel.events.emit(ctx.tenant, readJson(file, 'event'), {
          channel: CLI_CHANNEL,
          ...(o.enqueue ? { walk: 'enqueue' as const } : {}),
          ...(await writOf(o.writ)),
        });
        if (ctx.json) printJson(r);
        else {
          if (r.redelivery)
            line(
              `event ${r.eventId} of source ${r.source} was delivered before (${r.firstDeliveredAt}) with the same content: ${r.runs.length === 0 ? 'it started no run' : 'its runs'}`,
            );
          else if (r.runs.length === 0)
            line(
              `event ${r.eventId}: no LIVE or AUTONOMOUS workflow is triggered by it${r.unrouted ? `; kept as unrouted ${r.unrouted.id} (keel events ls --unrouted, keel events redeliver)` : ''}`,
            );
          for (const run of r.runs) {
            line(
              `${run.created ? 'run' : 'existing run'} ${run.runId} ${run.workflowId} v${run.version}: ${statusColor(run.status)}${run.reason ? ` (${run.reason})` : ''}`,
            );
          }
        }
        refuseIfHeldByModel(r.runs);
      }),
    );

  program
    .command('run')
    .description(
      'start a run of one workflow directly, whatever its status and triggers; a DRAFT, TESTING or SHADOW version runs simulated unless --live',
    )
    .argument('<workflow>', 'workflow id')
    .argument('<event>', 'event file (JSON), or - for stdin')
    .option('--version <n>', 'version to run (default: the newest)')
    .option(
      '--live',
      'act for real on a DRAFT, TESTING or SHADOW version: lists the tools it may call and asks first',
    )
    .option('--yes', 'with --live: call the tools for real without asking first')
    .option('--enqueue', 'create the run and leave it to `keel worker` processes')
    .option('--writ <file>', 'run under this writ file (the chain `keel writs issue | attenuate` wrote)')
    .action(
      async (
        workflowId: string,
        file: string,
        o: { version?: string; live?: boolean; yes?: boolean; enqueue?: boolean; writ?: string },
        cmd: Command,
      ) =>
        withContext(cmd, async (ctx) => {
          if (o.yes && !o.live)
            throw new KeelError(ErrorCode.usage, '--yes: confirms live effects; pass --live too', {
              field: 'yes',
            });
          const event = readJson(file, 'event');
          const version = o.version !== undefined ? { version: intOption(o.version, '--version') } : {};
          if (o.live) {
            const v = await ctx.keel.workflows.get(ctx.tenant, workflowId, version.version);
            // A LIVE or AUTONOMOUS version acts anyway; one not yet shown to behave is confirmed first.
            if (v && v.status !== 'LIVE' && v.status !== 'AUTONOMOUS')
              await confirmLiveEffects(versionPlan(ctx.keel, v), 'keel run --live', o.yes === true);
          }
          const r = await ctx.keel.runs.start(ctx.tenant, workflowId, event, {
            ...version,
            ...(o.live ? { live: true } : {}),
            ...(o.enqueue ? { walk: 'enqueue' as const } : {}),
            ...(await writOf(o.writ)),
          });
          if (ctx.json) printJson(r);
          else {
            const what = `${r.created ? '' : 'existing '}${r.simulated ? 'simulated run' : 'run'}`;
            const note = r.simulated
              ? pc.dim(
                  ' — not yet LIVE, so simulated: no write or external tool acted (--live acts for real)',
                )
              : '';
            line(
              `${what} ${r.runId} ${r.workflowId} v${r.version}: ${statusColor(r.status)}${r.reason ? ` (${r.reason})` : ''}${note}`,
            );
          }
          refuseIfHeldByModel([r]);
        }),
    );

  const runs = program.command('runs').description('list and inspect runs');
  registerRunsLs(runs, withContext);
  runs
    .command('show')
    .description('show one run: status, workflow, head, pending approval')
    .argument('<run>', 'run id')
    .action(async (runId: string, _o: unknown, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const run = await ctx.keel.runs.get(ctx.tenant, runId);
        const pending = await ctx.keel.approvals.list(ctx.tenant, runId);
        if (ctx.json) {
          printJson({ ...run, pendingApprovals: pending });
          return;
        }
        line(`run      ${run.runId}`);
        line(`workflow ${run.workflowId} v${run.version} ${pc.dim(run.specHash)}`);
        line(`status   ${statusColor(run.status)}`);
        line(`event    ${run.eventType} ${run.eventId}`);
        line(`head     seq ${run.head.seq} ${pc.dim(run.head.hash)}`);
        line(`started  ${run.createdAt}   updated ${run.updatedAt}`);
        for (const a of pending)
          line(`waiting  ${a.tool} (${a.reason}); approve with: keel approve ${run.runId}`);
      }),
    );

  program
    .command('history')
    .description("the run's ledger in plain language, one sentence per entry")
    .argument('<run>', 'run id')
    .action(async (runId: string, _o: unknown, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const lines = await ctx.keel.runs.history(ctx.tenant, runId);
        if (ctx.json) printJson(lines);
        else printHistory(lines);
      }),
    );

  program
    .command('verify')
    .description(
      "check the run's ledger: hashes, chain, seq, payload shapes; exits 5 naming the seq on any tampering",
    )
    .argument('[run]', 'run id')
    .option(
      '--engine <version>',
      'also require that the run was recorded by this engine version (e.g. keel/0.1.0)',
    )
    .option('--workflow <id>', "verify a workflow's hash-chained lifecycle records instead of a run")
    .option(
      '--dir <dir>',
      'verify a run directory `keel export` wrote, without a store: chains, hashes, manifest, pinned specs, writ chains (signatures with --trust-keys), the checkpoint it carries',
    )
    .option(
      '--key <public.pem>',
      'with --dir: the checkpoint public key; every run must be covered by the checkpoint the directory carries, signed by it (env KEEL_CHECKPOINT_PUB)',
    )
    .action(
      async (
        runId: string | undefined,
        o: { engine?: string; workflow?: string; dir?: string; key?: string },
        cmd: Command,
      ) =>
        withContext(cmd, async (ctx) => {
          if (o.key !== undefined && o.dir === undefined)
            throw new KeelError(
              ErrorCode.usage,
              '--key: checks the checkpoint a run directory carries; give it with --dir (a stored run is checked against its checkpoint already)',
              { field: 'key' },
            );
          if (o.dir !== undefined) {
            if (runId !== undefined || o.workflow !== undefined)
              throw new KeelError(
                ErrorCode.usage,
                'verify: --dir verifies a directory; give no run id or --workflow with it',
                {
                  field: 'dir',
                },
              );
            const { verifyDirCommand } = await import('./run-dir-files.ts');
            return verifyDirCommand(o.dir, cmd, ctx.json, flagOrEnv(o.key, 'key', 'KEEL_CHECKPOINT_PUB'));
          }
          if (o.workflow !== undefined) {
            if (runId !== undefined)
              throw new KeelError(ErrorCode.usage, 'verify: give a run id or --workflow, not both', {
                field: 'workflow',
              });
            const { records, chain } = await ctx.keel.lifecycle.records(ctx.tenant, o.workflow);
            if (ctx.json) printJson({ workflowId: o.workflow, ...chain });
            else line(chainText(o.workflow, records.length, chain));
            return chain.ok ? EXIT.ok : EXIT.verificationFailed;
          }
          if (runId === undefined)
            throw new KeelError(ErrorCode.usage, 'verify: expected a run id (or --workflow <id>)', {
              field: 'run',
            });
          const r = await ctx.keel.runs.verify(
            ctx.tenant,
            runId,
            o.engine === undefined ? {} : { engine: o.engine },
          );
          if (ctx.json) printJson({ runId, ...r });
          else line(verifyText(runId, r));
          return r.ok ? EXIT.ok : EXIT.verificationFailed;
        }),
    );

  program
    .command('replay')
    .description(
      're-execute the run against its own ledger (no tool or source is called) and compare every entry; exits 5 on divergence',
    )
    .argument('<run>', 'run id')
    .action(async (runId: string, _o: unknown, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const r = await ctx.keel.runs.replay(ctx.tenant, runId);
        if (ctx.json) printJson(r);
        else if (r.identical)
          line(`${pc.green('identical')}: ${r.entries} entries of ${runId} regenerated byte for byte`);
        else {
          const d = r.divergence;
          line(`${pc.red('DIVERGED')} at seq ${d.seq}: ${d.message}`);
          if (d.expected) line(`  replay:   ${JSON.stringify(d.expected)}`);
          if (d.recorded) line(`  recorded: ${JSON.stringify(d.recorded)}`);
          line(`  check: ${d.hint}`);
        }
        return r.identical ? EXIT.ok : EXIT.verificationFailed;
      }),
    );

  program
    .command('fork')
    .description(
      'start a new run that inherits the entries before --from; replay serves recorded values, branch draws and runs live',
    )
    .argument('<run>', 'run id')
    .requiredOption('--from <seq>', 'inherit entries before this seq')
    .addOption(
      new Option('--mode <mode>', 'replay or branch').choices(['replay', 'branch']).default('replay'),
    )
    .option('--event <file>', 'branch only: continue with this event instead (what-if)')
    .option('--version <n>', 'branch only: continue on this published version')
    .option('--yes', 'branch only: call the tools for real without asking first')
    .action(
      async (
        runId: string,
        o: { from: string; mode: string; event?: string; version?: string; yes?: boolean },
        cmd: Command,
      ) =>
        withContext(cmd, async (ctx) => {
          const fromSeq = intOption(o.from, '--from', 0);
          const event = o.event !== undefined ? { event: readJson(o.event, 'event') } : {};
          const version = o.version !== undefined ? { version: intOption(o.version, '--version') } : {};
          if (o.mode === 'branch')
            await confirmLiveEffects(
              await livePlan(ctx.keel, ctx.tenant, runId, { fromSeq, ...version }),
              'keel fork --mode branch',
              o.yes === true,
            );
          const r = await ctx.keel.runs.fork(ctx.tenant, runId, {
            fromSeq,
            mode: o.mode,
            ...event,
            ...version,
          });
          if (ctx.json) printJson(r);
          else
            line(
              `${r.created ? 'fork' : 'existing fork'} ${r.runId} (${r.mode} from seq ${r.fromSeq} of ${runId}): ${statusColor(r.status)}${r.reason ? ` (${r.reason})` : ''}`,
            );
        }),
    );

  program
    .command('rerun')
    .description(
      're-execute a run live as a new attempt linked to it (diagnostics); the original is never changed',
    )
    .argument('<run>', 'run id')
    .option('--yes', 'call the tools for real without asking first')
    .action(async (runId: string, o: { yes?: boolean }, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        await confirmLiveEffects(await livePlan(ctx.keel, ctx.tenant, runId), 'keel rerun', o.yes === true);
        const r = await ctx.keel.runs.rerun(ctx.tenant, runId);
        if (ctx.json) printJson(r);
        else
          line(`attempt ${r.runId} of ${runId}: ${statusColor(r.status)}${r.reason ? ` (${r.reason})` : ''}`);
      }),
    );
}
