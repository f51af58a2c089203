/**
 * The workflow commands: `keel check` (the static determinism check of plan modules; no store),
 * `keel validate` (a spec, without publishing it) and `keel publish` (a spec as an immutable
 * version, as DRAFT). A spec is a YAML or JSON file or a *.plan.ts plan module. Promoting is a
 * lifecycle command (lifecycle-commands.ts).
 */
import type { Command } from 'commander';
import pc from 'picocolors';
import { SPEC_LIMITS } from '../core/spec/input-limits.ts';
import { isPlanModulePath } from '../plan/is-plan-module-path.ts';
import { formatFinding } from '../plan/plan-finding.ts';
import { actor, type GlobalOptions, type ReportError, type WithContext } from './context.ts';
import { EXIT } from './exit-codes.ts';
import { readText } from './input.ts';
import { line, printJson } from './output.ts';

export function registerWorkflowCommands(
  program: Command,
  withContext: WithContext,
  reportError: ReportError,
): void {
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
          : ctx.keel.workflows.validate(readText(file, 'spec', SPEC_LIMITS.maxBytes), file);
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
          : await ctx.keel.workflows.publish(
              ctx.tenant,
              readText(file, 'spec', SPEC_LIMITS.maxBytes),
              file,
              actor(o.as),
            );
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
}
