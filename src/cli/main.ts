import { Command, CommanderError, Option } from 'commander';
import pc from 'picocolors';
import { ErrorCode, ensureError, isKeelError, KeelError } from '../core/errors.ts';
import { RUN_STATUSES, type RunStatus } from '../core/ledger/index.ts';
import { formatProblem, type SpecProblem } from '../core/spec/index.ts';
import { isPlanModulePath } from '../plan/is-plan-module-path.ts';
import { formatFinding, type PlanFinding } from '../plan/plan-finding.ts';
import { actor, type CliContext, type GlobalOptions, openContext } from './context.ts';
import { runDemo } from './demo.ts';
import { EXIT, exitCodeFor } from './exit-codes.ts';
import { registerGovernanceCommands } from './governance-commands.ts';
import { writOption } from './governance-options.ts';
import { initProject } from './init.ts';
import { intOption, readJson, readText } from './input.ts';
import { registerKeysCommands } from './keys-commands.ts';
import { runMigrate } from './migrate.ts';
import { line, printHistory, printJson, statusColor, verifyText } from './output.ts';
import { registerRunControlCommands } from './run-control-commands.ts';
import { registerScaleOutCommands } from './scale-out-commands.ts';
import { registerServeCommand } from './serve-command.ts';
import { registerWritTrustCommands } from './writ-trust-commands.ts';

/** Runs a command body with a context, mapping errors to messages and exit codes. */
async function withContext(
  cmd: Command,
  // biome-ignore lint/suspicious/noConfusingVoidType: command bodies return an exit code or nothing
  body: (ctx: CliContext, g: GlobalOptions) => Promise<number | void>,
) {
  const g = cmd.optsWithGlobals() as GlobalOptions;
  let ctx: CliContext | undefined;
  try {
    ctx = await openContext(g);
    process.exitCode = (await body(ctx, g)) ?? EXIT.ok;
  } catch (e) {
    reportError(e, g.json === true);
  } finally {
    await ctx?.close();
  }
}

function reportError(e: unknown, json: boolean): void {
  const err = ensureError(e);
  if (json) {
    process.stderr.write(
      `${JSON.stringify(isKeelError(err) ? err.toJSON() : { error: 'internal', message: err.message })}\n`,
    );
  } else {
    process.stderr.write(`${pc.red('error')}: ${err.message}\n`);
    const problems = isKeelError(err) ? (err.details.problems as SpecProblem[] | undefined) : undefined;
    if (Array.isArray(problems) && problems.length > 1) {
      for (const p of problems)
        process.stderr.write(
          `  - ${'file' in p ? formatProblem(p) : `${(p as { field: string }).field}: ${(p as { message: string }).message}`}\n`,
        );
    }
    const findings = isKeelError(err) ? (err.details.findings as PlanFinding[] | undefined) : undefined;
    if (Array.isArray(findings) && findings.length > 1)
      for (const f of findings) process.stderr.write(`  - ${formatFinding(f)}\n`);
    if (!isKeelError(err)) process.stderr.write(`${err.stack ?? ''}\n`);
  }
  process.exitCode = exitCodeFor(err);
}

export function buildProgram(): Command {
  const program = new Command('keel')
    .description('Deterministic, auditable runtime for agent workflows.')
    .version('0.1.0')
    .option(
      '--store <path|url>',
      'SQLite store file or postgres:// URL (env KEEL_STORE, then KEEL_DATABASE_URL; default .keel/keel.db)',
      undefined,
    )
    .option('--tenant <tenant>', 'tenant to act in (env KEEL_TENANT)', undefined)
    .option('--tools <module>', 'load more tools from a tool pack module (env KEEL_TOOLS)', undefined)
    .option(
      '--policy <file>',
      "the tenant's policy file, judging every proposal (env KEEL_POLICY)",
      undefined,
    )
    .option(
      '--trust-keys <public.pem>',
      "public keys trusted to sign the tenant's writs, several joined by ':' (env KEEL_TRUST)",
      undefined,
    )
    .option('--json', 'print machine-readable JSON')
    .showHelpAfterError()
    .exitOverride();

  program
    .command('migrate')
    .description('apply pending schema migrations to the store and print its schema version')
    .action(async (_o: unknown, cmd: Command) => {
      const g = cmd.optsWithGlobals() as GlobalOptions;
      try {
        process.exitCode = await runMigrate(g);
      } catch (e) {
        reportError(e, g.json === true);
      }
    });

  program
    .command('demo')
    .description('run the support-desk refund demo in a fresh temporary store')
    .option('--keep', 'keep the temporary store and print its path')
    .action(async (o: { keep?: boolean }, cmd: Command) => {
      const g = cmd.optsWithGlobals() as GlobalOptions;
      try {
        process.exitCode = await runDemo({ keep: o.keep === true, json: g.json === true });
      } catch (e) {
        reportError(e, g.json === true);
      }
    });

  program
    .command('init')
    .description('create ./workflows and ./events with the support-desk example, and the store')
    .argument('[dir]', 'directory to initialise', '.')
    .action(async (dir: string, _o: unknown, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const written = initProject(dir);
        if (ctx.json) printJson({ written });
        else {
          for (const f of written) line(`wrote ${f}`);
          if (written.length === 0) line('nothing to write: the example files exist already');
          line(
            `next: keel publish workflows/refund-under-50.yaml && keel promote refund-under-50 AUTONOMOUS`,
          );
        }
      }),
    );

  program
    .command('check')
    .description(
      'static determinism check of plan modules (*.plan.ts): no clock, randomness, host access or I/O; exits 7 on any finding',
    )
    .argument('<paths...>', 'plan module files, or directories to search for *.plan.ts')
    .action(async (paths: string[], _o: unknown, cmd: Command) => {
      const g = cmd.optsWithGlobals() as GlobalOptions;
      try {
        const { checkPlanFiles } = await import('../plan/index.ts');
        const { files, findings } = checkPlanFiles(paths);
        if (g.json === true) printJson(findings);
        else {
          for (const f of findings) line(formatFinding(f));
          const flagged = new Set(findings.map((f) => f.file)).size;
          line(
            findings.length === 0
              ? `${pc.green('ok')}: ${files.length} plan module${files.length === 1 ? '' : 's'}, no findings`
              : `${pc.red(`${findings.length} finding${findings.length === 1 ? '' : 's'}`)} in ${flagged} of ${files.length} plan modules`,
          );
        }
        process.exitCode = findings.length === 0 ? EXIT.ok : EXIT.determinismViolation;
      } catch (e) {
        reportError(e, g.json === true);
      }
    });

  program
    .command('validate')
    .description('check a workflow spec (YAML, JSON, or a *.plan.ts plan module) without publishing it')
    .argument('<spec>', 'spec file')
    .action(async (file: string, _o: unknown, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const { spec, specHash } = isPlanModulePath(file)
          ? await ctx.keel.workflows.validatePlan(file)
          : ctx.keel.workflows.validate(readText(file, 'spec'), file);
        if (ctx.json) printJson({ valid: true, id: spec.id, version: spec.version, specHash });
        else
          line(`${pc.green('valid')}: ${spec.id} v${spec.version}, ${spec.steps.length} steps, ${specHash}`);
      }),
    );

  program
    .command('publish')
    .description(
      'publish a workflow spec as an immutable version (a *.plan.ts plan module is checked, then evaluated in a sandbox)',
    )
    .argument('<spec>', 'spec file')
    .option('--as <name>', 'who publishes (env KEEL_USER)')
    .action(async (file: string, o: { as?: string }, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const { created, record } = isPlanModulePath(file)
          ? await ctx.keel.workflows.publishPlan(ctx.tenant, file, actor(o.as))
          : await ctx.keel.workflows.publish(ctx.tenant, readText(file, 'spec'), file, actor(o.as));
        if (ctx.json)
          printJson({
            created,
            workflowId: record.workflowId,
            version: record.version,
            status: record.status,
            specHash: record.specHash,
          });
        else
          line(
            `${created ? 'published' : 'already published'} ${record.workflowId} v${record.version} (${record.status}) ${pc.dim(record.specHash)}`,
          );
      }),
    );

  program
    .command('promote')
    .description("change a version's status (DRAFT, TESTING, SHADOW, LIVE, AUTONOMOUS); records who did it")
    .argument('<workflow>', 'workflow id')
    .argument('<status>', 'new status')
    .option('--version <n>', 'version to promote (default: the newest)')
    .option('--as <name>', 'who promotes (env KEEL_USER)')
    .action(async (workflowId: string, status: string, o: { version?: string; as?: string }, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const version = o.version === undefined ? undefined : intOption(o.version, '--version');
        const p = await ctx.keel.workflows.promote(
          ctx.tenant,
          workflowId,
          status.toUpperCase(),
          actor(o.as),
          version,
        );
        if (ctx.json) printJson(p);
        else line(`${p.workflowId} v${p.version}: ${p.from} -> ${p.to} by ${p.by}`);
      }),
    );

  program
    .command('emit')
    .description('ingest an event (JSON file, or - for stdin) and run every workflow it triggers')
    .argument('<event>', 'event file')
    .option('--enqueue', 'create the runs and leave them to `keel worker` processes')
    .option('--writ <file>', 'run under this writ file (the chain `keel writs issue | attenuate` wrote)')
    .action(async (file: string, o: { enqueue?: boolean; writ?: string }, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const r = await ctx.keel.events.emit(ctx.tenant, readJson(file, 'event'), {
          ...(o.enqueue ? { walk: 'enqueue' as const } : {}),
          ...writOption(o.writ),
        });
        if (ctx.json) {
          printJson(r);
          return;
        }
        if (r.runs.length === 0)
          line(`event ${r.eventId}: no LIVE or AUTONOMOUS workflow is triggered by it`);
        for (const run of r.runs) {
          line(
            `${run.created ? 'run' : 'existing run'} ${run.runId} ${run.workflowId} v${run.version}: ${statusColor(run.status)}${run.reason ? ` (${run.reason})` : ''}`,
          );
        }
      }),
    );

  program
    .command('run')
    .description(
      'start a run of one workflow directly, whatever its status and triggers (for DRAFT and TESTING versions)',
    )
    .argument('<workflow>', 'workflow id')
    .argument('<event>', 'event file (JSON), or - for stdin')
    .option('--version <n>', 'version to run (default: the newest)')
    .option('--enqueue', 'create the run and leave it to `keel worker` processes')
    .option('--writ <file>', 'run under this writ file (the chain `keel writs issue | attenuate` wrote)')
    .action(
      async (
        workflowId: string,
        file: string,
        o: { version?: string; enqueue?: boolean; writ?: string },
        cmd: Command,
      ) =>
        withContext(cmd, async (ctx) => {
          const r = await ctx.keel.runs.start(ctx.tenant, workflowId, readJson(file, 'event'), {
            ...(o.version !== undefined ? { version: intOption(o.version, '--version') } : {}),
            ...(o.enqueue ? { walk: 'enqueue' as const } : {}),
            ...writOption(o.writ),
          });
          if (ctx.json) printJson(r);
          else
            line(
              `${r.created ? 'run' : 'existing run'} ${r.runId} ${r.workflowId} v${r.version}: ${statusColor(r.status)}${r.reason ? ` (${r.reason})` : ''}`,
            );
        }),
    );

  const runs = program.command('runs').description('list and inspect runs');
  runs
    .command('ls')
    .description('list runs, newest first')
    .addOption(new Option('--status <status>', 'only runs with this status').choices([...RUN_STATUSES]))
    .option('--workflow <id>', 'only runs of this workflow')
    .option('--limit <n>', 'page size', '50')
    .option('--cursor <cursor>', 'continue after a previous page')
    .action(
      async (o: { status?: RunStatus; workflow?: string; limit: string; cursor?: string }, cmd: Command) =>
        withContext(cmd, async (ctx) => {
          const page = await ctx.keel.runs.list(ctx.tenant, {
            ...(o.status ? { status: o.status } : {}),
            ...(o.workflow ? { workflowId: o.workflow } : {}),
            ...(o.cursor ? { cursor: o.cursor } : {}),
            limit: intOption(o.limit, '--limit'),
          });
          if (ctx.json) {
            printJson(page);
            return;
          }
          if (page.runs.length === 0) line('no runs');
          for (const r of page.runs)
            line(
              `${r.runId}  ${r.workflowId} v${r.version}  ${statusColor(r.status)}  ${pc.dim(r.createdAt)}`,
            );
          if (page.next) line(pc.dim(`more: --cursor ${page.next}`));
        }),
    );
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
    .argument('<run>', 'run id')
    .option(
      '--engine <version>',
      'also require that the run was recorded by this engine version (e.g. keel/0.1.0)',
    )
    .action(async (runId: string, o: { engine?: string }, cmd: Command) =>
      withContext(cmd, async (ctx) => {
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
    .action(
      async (
        runId: string,
        o: { from: string; mode: string; event?: string; version?: string },
        cmd: Command,
      ) =>
        withContext(cmd, async (ctx) => {
          const fromSeq = Number(o.from);
          if (!Number.isSafeInteger(fromSeq) || fromSeq < 0) {
            throw new KeelError(
              ErrorCode.usage,
              `--from: expected a seq (an integer >= 0), got ${JSON.stringify(o.from)}`,
              { field: 'from' },
            );
          }
          const r = await ctx.keel.runs.fork(ctx.tenant, runId, {
            fromSeq,
            mode: o.mode,
            ...(o.event !== undefined ? { event: readJson(o.event, 'event') } : {}),
            ...(o.version !== undefined ? { version: intOption(o.version, '--version') } : {}),
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
    .action(async (runId: string, _o: unknown, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const r = await ctx.keel.runs.rerun(ctx.tenant, runId);
        if (ctx.json) printJson(r);
        else
          line(`attempt ${r.runId} of ${runId}: ${statusColor(r.status)}${r.reason ? ` (${r.reason})` : ''}`);
      }),
    );

  const approvals = program.command('approvals').description('pending approvals');
  approvals
    .command('ls')
    .description('list pending approvals')
    .action(async (_o: unknown, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const list = await ctx.keel.approvals.list(ctx.tenant);
        if (ctx.json) {
          printJson(list);
          return;
        }
        if (list.length === 0) line('no pending approvals');
        for (const a of list) line(`${a.runId}  ${a.tool} ${JSON.stringify(a.args)}  ${pc.dim(a.reason)}`);
      }),
    );

  for (const decision of ['approve', 'deny'] as const) {
    program
      .command(decision)
      .description(`${decision} the pending approval of a run, then continue (or stop) it`)
      .argument('<run>', 'run id')
      .option('--as <name>', 'who decides (env KEEL_USER)')
      .option('--note <text>', 'a note recorded with the decision')
      .option('--enqueue', 'leave the rest of the run to `keel worker` processes')
      .action(async (runId: string, o: { as?: string; note?: string; enqueue?: boolean }, cmd: Command) =>
        withContext(cmd, async (ctx) => {
          const by = actor(o.as);
          const walk = o.enqueue ? { walk: 'enqueue' as const } : {};
          const r =
            decision === 'approve'
              ? await ctx.keel.approvals.approve(ctx.tenant, runId, by, o.note, walk)
              : await ctx.keel.approvals.deny(ctx.tenant, runId, by, o.note, walk);
          if (ctx.json) printJson(r);
          else
            line(
              `${decision === 'approve' ? 'approved' : 'denied'} by ${by}; run ${r.runId} is ${statusColor(r.status)}${r.reason ? ` (${r.reason})` : ''}`,
            );
        }),
      );
  }
  registerScaleOutCommands(program, withContext);
  registerServeCommand(program, withContext);
  registerRunControlCommands(program, withContext);
  registerGovernanceCommands(program, reportError);
  registerKeysCommands(program, withContext);
  registerWritTrustCommands(program, withContext);
  return program;
}

export async function main(argv: readonly string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv as string[]);
  } catch (e) {
    if (e instanceof CommanderError) {
      process.exitCode = e.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    reportError(e, argv.includes('--json'));
  }
}
