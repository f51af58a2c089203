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
import { findTemplate, initFromTemplate, listTemplates } from './templates.ts';

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
      'create workflows/, events/ and the tool pack keel.tools.mjs in [dir] with the support-desk example (or --template <name>: keel templates ls), and the store (<dir>/.keel/keel.db unless one is chosen)',
    )
    .argument('[dir]', 'directory to initialise', '.')
    .option(
      '--template <name>',
      'start from a template instead of the support-desk example (keel templates ls)',
    )
    .action(async (dir: string, o: { template?: string }, cmd: Command) => {
      if (o.template !== undefined) {
        // Judged before the store is opened: an unknown name creates nothing.
        try {
          findTemplate(o.template);
        } catch (e) {
          reportError(e, (cmd.optsWithGlobals() as GlobalOptions).json === true);
          return;
        }
      }
      // The default store goes with the project: <dir>/.keel/keel.db, where the commands the
      // advice names (run from <dir>, where they find its tool pack) open it.
      await withContext(
        cmd,
        async (ctx) => {
          if (o.template !== undefined) return initTemplate(o.template, dir, ctx.json);
          const written = initProject(dir);
          if (ctx.json) printJson({ written });
          else {
            for (const f of written) line(`wrote ${f}`);
            if (written.length === 0) line('nothing to write: the example files exist already');
            line(
              `next: ${cdInto(dir)}npx keel publish workflows/refund-under-50.yaml && npx keel promote refund-under-50 TESTING && npx keel test refund-under-50 (then SHADOW, LIVE: one step at a time)`,
            );
          }
        },
        dir,
      );
    });

  const templates = program
    .command('templates')
    .description('the project templates keel init --template starts from');
  templates
    .command('ls')
    .description('list the templates: name, domain, workflows, tools, and whether each ships a policy')
    .action((_o: unknown, cmd: Command) => {
      const g = cmd.optsWithGlobals() as GlobalOptions;
      try {
        const all = listTemplates();
        if (g.json === true) printJson({ templates: all });
        else {
          const width = Math.max(...all.map((t) => t.name.length));
          for (const t of all) {
            line(`${t.name.padEnd(width)}  ${t.domain}: ${t.summary}`);
            line(
              `${' '.repeat(width)}  workflows: ${t.workflows.join(', ')}; tools: ${t.tools.join(', ')}${t.policy ? '; policy.yaml' : ''}`,
            );
          }
          line(`${all.length} templates; start one with keel init --template <name> [dir]`);
        }
      } catch (e) {
        reportError(e, g.json === true);
      }
    });
}

function initTemplate(name: string, dir: string, json: boolean): void {
  const t = findTemplate(name);
  const { written, kept } = initFromTemplate(name, dir);
  if (json) {
    printJson({ template: name, written, kept });
    return;
  }
  for (const f of written) line(`wrote ${f}`);
  for (const f of kept) line(`kept ${f}: it exists already`);
  if (written.length === 0) line(`nothing to write: the ${name} template's files exist already`);
  const policy = t.policy ? ' --policy policy.yaml' : '';
  const first = t.workflows[0]!;
  line(
    `next: ${cdInto(dir)}npx keel${policy} publish workflows/${first}.yaml && npx keel${policy} promote ${first} TESTING && npx keel${policy} test ${first} (README.md tells the rest)`,
  );
}

/**
 * The advice's first command when the project is not the working directory: keel runs from the
 * project, where it finds the tool pack and the store. Quoted for a POSIX shell when it must be.
 */
function cdInto(dir: string): string {
  if (dir === '.' || dir === '') return '';
  const quoted = /^[\w@%+=:,./-]+$/.test(dir) ? dir : `'${dir.replaceAll("'", `'\\''`)}'`;
  return `cd ${quoted} && `;
}
