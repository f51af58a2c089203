/**
 * Getting started: `keel migrate` (apply pending schema migrations to the store), `keel demo` (the
 * support-desk refund demo in a fresh temporary store) and `keel init` (the example workflows,
 * events and tool pack, and the store). `migrate` and `demo` open their own store, so their errors go through
 * main.ts's `reportError`; `init` runs in a context like every other command.
 */
import type { Command } from 'commander';
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { GlobalOptions, ReportError, WithContext } from './context.ts';
import { initProject } from './init.ts';
import { line, printJson } from './output.ts';

export function registerSetupCommands(
  program: Command,
  withContext: WithContext,
  reportError: ReportError,
): void {
  program
    .command('migrate')
    .description('apply pending schema migrations to the store and print its schema version')
    .action(async (_o: unknown, cmd: Command) => {
      const g = cmd.optsWithGlobals() as GlobalOptions;
      try {
        const { runMigrate } = await import('./migrate.ts');
        process.exitCode = await runMigrate(g);
      } catch (e) {
        reportError(e, g.json === true);
      }
    });

  program
    .command('demo')
    .description(
      'run the support-desk refund demo in a fresh temporary store; `keel demo lifecycle`: a v2 tested, shadowed, gated, rolled out and rolled back',
    )
    .argument('[story]', 'desk (default) or lifecycle', 'desk')
    .option('--keep', 'keep the temporary store and print its path')
    .action(async (story: string, o: { keep?: boolean }, cmd: Command) => {
      const g = cmd.optsWithGlobals() as GlobalOptions;
      try {
        if (story !== 'desk' && story !== 'lifecycle')
          throw new KeelError(
            ErrorCode.usage,
            `demo: expected desk or lifecycle, got ${JSON.stringify(story)}`,
            {
              field: 'story',
            },
          );
        const run =
          story === 'lifecycle'
            ? (await import('./demo-lifecycle.ts')).runLifecycleDemo
            : (await import('./demo.ts')).runDemo;
        process.exitCode = await run({ keep: o.keep === true, json: g.json === true });
      } catch (e) {
        reportError(e, g.json === true);
      }
    });

  program
    .command('init')
    .description(
      'create ./workflows, ./events and the tool pack keel.tools.mjs with the support-desk example, and the store',
    )
    .argument('[dir]', 'directory to initialise', '.')
    .action(async (dir: string, _o: unknown, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const written = initProject(dir);
        if (ctx.json) printJson({ written });
        else {
          for (const f of written) line(`wrote ${f}`);
          if (written.length === 0) line('nothing to write: the example files exist already');
          if (dir !== '.') line(`run keel from ${dir}: commands load the tool pack in the working directory`);
          line(
            `next: npx keel publish workflows/refund-under-50.yaml && npx keel promote refund-under-50 TESTING && npx keel test refund-under-50 (then SHADOW, LIVE: one step at a time)`,
          );
        }
      }),
    );
}
