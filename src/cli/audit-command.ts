/**
 * The `keel audit` command group, shared by the modules that add its subcommands (`audit ls`,
 * `audit verify`, ...): whichever registers first creates it, the others add to the same one.
 */
import type { Command } from 'commander';

/** The program's `audit` subcommand, created (with its description) when it is not there yet. */
export function auditCommand(program: Command): Command {
  return (
    program.commands.find((c) => c.name() === 'audit') ??
    program.command('audit').description('the audit surface: entries across runs, checkpoints')
  );
}
