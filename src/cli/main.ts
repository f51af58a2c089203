/**
 * The `keel` command line: the program, its global options, `withContext` (a command body with an
 * open store) and error reporting (report-error.ts). The commands live in their modules,
 * registered here in the order `keel --help` lists them. What each command may do to the store
 * (create, write, read, none) is store-access.ts's table.
 *
 * `-V, --version` is Keel's version only before a command (`keel --version`); after one, `--version`
 * is that command's option (`keel promote wf LIVE --version 2`), so the two never collide.
 */
import { Command, CommanderError, Help, Option } from 'commander';
import { registerApprovalCommands } from './approval-commands.ts';
import { registerAuditQueryCommands } from './audit-query-commands.ts';
import { registerAuthoringCommands, registerDraftCommand } from './authoring-commands.ts';
import { registerCheckpointCommands } from './checkpoint-commands.ts';
import { type CliContext, type GlobalOptions, openContext } from './context.ts';
import { registerEventCommands } from './event-commands.ts';
import { registerEvidenceCommands } from './evidence-commands.ts';
import { EXIT } from './exit-codes.ts';
import { registerGovernanceCommands } from './governance-commands.ts';
import { registerHooksCommands } from './hooks-commands.ts';
import { registerKeysCommands } from './keys-commands.ts';
import { registerLifecycleCommands } from './lifecycle-commands.ts';
import { registerMcpCommand } from './mcp-command.ts';
import { reportError, reportUsageErrors } from './report-error.ts';
import { registerRunCommands } from './run-commands.ts';
import { registerRunControlCommands } from './run-control-commands.ts';
import { registerScaleOutCommands } from './scale-out-commands.ts';
import { registerScheduleCommands } from './schedule-commands.ts';
import { registerServeCommand } from './serve-command.ts';
import { registerSetupCommands } from './setup-commands.ts';
import { commandPath, storeAccessFor } from './store-access.ts';
import { registerToolsCommands } from './tools-commands.ts';
import { registerWorkflowCommands } from './workflow-commands.ts';
import { registerWritTrustCommands } from './writ-trust-commands.ts';

export const KEEL_VERSION = '0.1.0';

/** Shown in `keel --help`; recognised by `main` before any command, never registered with commander. */
const VERSION_OPTION = new Option('-V, --version', 'output the version number');

/**
 * Runs a command body with a context, mapping errors to messages and exit codes. A store the
 * command created is removed again when it fails, and announced on stderr when it succeeds.
 */
async function withContext(
  cmd: Command,
  // biome-ignore lint/suspicious/noConfusingVoidType: command bodies return an exit code or nothing
  body: (ctx: CliContext, g: GlobalOptions) => Promise<number | void>,
  projectDir?: string,
) {
  const given = cmd.optsWithGlobals() as GlobalOptions;
  const g = projectDir === undefined ? given : { ...given, projectDir };
  const command = commandPath(cmd);
  let ctx: CliContext | undefined;
  let failed = true;
  try {
    ctx = await openContext(g, storeAccessFor(cmd), command);
    process.exitCode = (await body(ctx, g)) ?? EXIT.ok;
    failed = false;
    ctx.announceCreated();
  } catch (e) {
    reportError(e, g.json === true, command);
  } finally {
    await ctx?.close(failed);
  }
}

export function buildProgram(): Command {
  const program = new Command('keel')
    .description('Deterministic, auditable runtime for agent workflows.')
    .configureHelp({
      visibleOptions(cmd: Command) {
        const options = Help.prototype.visibleOptions.call(this, cmd);
        return cmd.parent ? options : [VERSION_OPTION, ...options];
      },
    })
    .option(
      '--store <path|url>',
      'SQLite store file or postgres:// URL (env KEEL_STORE, then KEEL_DATABASE_URL; default .keel/keel.db)',
      undefined,
    )
    .option('--tenant <tenant>', 'tenant to act in (env KEEL_TENANT)', undefined)
    .option(
      '--tools <module|file>',
      'load more tools from a tool pack module, or a tools file (.yaml/.yml/.json: HTTP tools, MCP servers; docs/tools.md) (env KEEL_TOOLS)',
      undefined,
    )
    .option(
      '--hooks <file>',
      'the hooks file (.yaml/.yml/.json) keel serve serves at POST /hooks/<name> and keel hooks reads; docs/hooks.md (env KEEL_HOOKS; default ./keel.hooks.yaml if present)',
      undefined,
    )
    .option(
      '--model-provider <name>',
      'model provider for model slots: openai, anthropic or recorded (env KEEL_MODEL_PROVIDER; docs/models.md)',
      undefined,
    )
    .option('--model <name>', 'the model the provider is asked for (env KEEL_MODEL)', undefined)
    .option(
      '--model-base-url <url>',
      'base URL of an OpenAI-compatible or Anthropic API, e.g. a local llama.cpp server (env KEEL_MODEL_BASE_URL)',
      undefined,
    )
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
    .option(
      '--expose-env <entries>',
      "env variables tenants' runs may read, TENANT=NAME[,NAME...] separated by ';', '*' for every tenant; none by default (env KEEL_EXPOSE_ENV)",
      undefined,
    )
    .option(
      '--gates <file>',
      "the tenant's promotion gate thresholds, YAML or JSON: shadow, live, autonomous (env KEEL_GATES; docs/lifecycle.md)",
      undefined,
    )
    .option(
      '--max-shadow-runs <n>',
      'shadow runs of a tenant this process walks at once; past it, shadow work waits in the queue; 0 leaves it to keel serve and keel worker (env KEEL_MAX_SHADOW_RUNS; default 8)',
      undefined,
    )
    .option(
      '--witness <dir|file>',
      'where signed checkpoints are kept outside the store: checkpoint writes each one there; audit verify, verify and every action check the store still holds the last (env KEEL_CHECKPOINT_WITNESS; docs/audit.md)',
      undefined,
    )
    .option('--json', 'print machine-readable JSON')
    .exitOverride();

  registerSetupCommands(program, withContext, reportError);
  registerWorkflowCommands(program, withContext, reportError);
  registerAuthoringCommands(program, withContext);
  registerDraftCommand(program, withContext);
  registerLifecycleCommands(program, withContext);
  registerRunCommands(program, withContext);
  registerEventCommands(program, withContext);
  registerScheduleCommands(program, withContext);
  registerEvidenceCommands(program, withContext);
  registerAuditQueryCommands(program, withContext);
  registerCheckpointCommands(program, withContext);
  registerApprovalCommands(program, withContext);
  registerScaleOutCommands(program, withContext);
  registerServeCommand(program, withContext);
  registerMcpCommand(program, withContext);
  registerRunControlCommands(program, withContext);
  registerGovernanceCommands(program, reportError);
  registerKeysCommands(program, withContext);
  registerWritTrustCommands(program, withContext);
  registerToolsCommands(program, withContext, reportError);
  registerHooksCommands(program, reportError);
  return program;
}

/**
 * True when the arguments ask for Keel's version: `-V` or `--version` among the global options,
 * before any command. Global options that take a value skip it (`--store -V` names a store).
 */
export function asksForVersion(program: Command, args: readonly string[]): boolean {
  const takesValue = new Set(
    program.options.filter((o) => o.required || o.optional).flatMap((o) => [o.long, o.short]),
  );
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-V' || a === '--version') return true;
    if (a === '--' || !a.startsWith('-')) return false;
    if (takesValue.has(a)) i++;
  }
  return false;
}

export async function main(argv: readonly string[]): Promise<void> {
  const program = buildProgram();
  const json = argv.includes('--json');
  if (asksForVersion(program, argv.slice(2))) {
    process.stdout.write(`${KEEL_VERSION}\n`);
    return;
  }
  reportUsageErrors(program, json);
  try {
    await program.parseAsync(argv as string[]);
  } catch (e) {
    if (e instanceof CommanderError) {
      process.exitCode = e.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    reportError(e, json);
  }
}
