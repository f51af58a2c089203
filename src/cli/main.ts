/**
 * The `keel` command line: the program, its global options, `withContext` (a command body with an
 * open store) and `reportError` (messages and exit codes). The commands live in their modules,
 * registered here in the order `keel --help` lists them.
 */
import { Command, CommanderError } from 'commander';
import pc from 'picocolors';
import { ensureError, isKeelError } from '../core/errors.ts';
import { formatProblem, type SpecProblem } from '../core/spec/spec-problem.ts';
import { formatFinding, type PlanFinding } from '../plan/plan-finding.ts';
import { registerApprovalCommands } from './approval-commands.ts';
import { type CliContext, type GlobalOptions, openContext } from './context.ts';
import { EXIT, exitCodeFor } from './exit-codes.ts';
import { registerGovernanceCommands } from './governance-commands.ts';
import { registerKeysCommands } from './keys-commands.ts';
import { registerRunCommands } from './run-commands.ts';
import { registerRunControlCommands } from './run-control-commands.ts';
import { registerScaleOutCommands } from './scale-out-commands.ts';
import { registerServeCommand } from './serve-command.ts';
import { registerSetupCommands } from './setup-commands.ts';
import { registerWorkflowCommands } from './workflow-commands.ts';
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
    .option(
      '--expose-env <entries>',
      "env variables tenants' runs may read, TENANT=NAME[,NAME...] separated by ';', '*' for every tenant; none by default (env KEEL_EXPOSE_ENV)",
      undefined,
    )
    .option('--json', 'print machine-readable JSON')
    .showHelpAfterError()
    .exitOverride();

  registerSetupCommands(program, withContext, reportError);
  registerWorkflowCommands(program, withContext, reportError);
  registerRunCommands(program, withContext);
  registerApprovalCommands(program, withContext);
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
