/**
 * `keel hooks ls` and `keel hooks test <hook> <sample>` registered; what they do is in
 * hooks-actions.ts, loaded when one runs (so `keel --help` reads no YAML parser or validator).
 */
import type { Command } from 'commander';
import type { GlobalOptions, ReportError } from './context.ts';

export function registerHooksCommands(program: Command, report: ReportError): void {
  const hooks = program
    .command('hooks')
    .description('the hooks file: webhooks served at POST /hooks/<name> (docs/hooks.md)');

  hooks
    .command('ls')
    .description('list the hooks of the hooks file: path, tenant, authentication, limits')
    .action(async (_o: unknown, cmd: Command) => {
      const g = cmd.optsWithGlobals() as GlobalOptions;
      (await import('./hooks-actions.ts')).hooksLs(g, report);
    });

  hooks
    .command('test')
    .description(
      'verify a sample delivery (if signed) and print the canonical event it maps to; starts nothing',
    )
    .argument('<hook>', 'the hook’s name')
    .argument('<sample>', 'a file holding the delivery’s raw body')
    .option('--headers <file>', 'the headers it came with: a YAML or JSON mapping of names to values')
    .option('--at <time>', 'check a timestamped signature as of this RFC 3339 time (default now)')
    .action(async (name: string, sample: string, o: { headers?: string; at?: string }, cmd: Command) => {
      const g = cmd.optsWithGlobals() as GlobalOptions;
      (await import('./hooks-actions.ts')).hooksTest(name, sample, o, g, report);
    });
}
