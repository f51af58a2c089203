/**
 * Authoring for people who are not engineers: `keel explain` (any spec, or a stored
 * `workflow[@version]`, read back in plain language with its risks) and `keel draft` (a request in
 * plain words compiled offline into a DRAFT spec, shown with its read-back and questions, and
 * published as DRAFT only once a person confirms: --yes or the terminal prompt). docs/authoring.md.
 */
import type { Command } from 'commander';
import { explainSpec } from '../core/authoring/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { SPEC_LIMITS, type WorkflowSpec } from '../core/spec/index.ts';
import { isPlanModulePath } from '../plan/is-plan-module-path.ts';
import type { WithContext } from './context.ts';
import { readText } from './input.ts';
import { line, printJson } from './output.ts';
import { isSpecFileArg } from './store-access.ts';

/** `wf` or `wf@3`. */
export function parseWorkflowRef(ref: string): { workflowId: string; version?: number } {
  const m = /^([a-z0-9][a-z0-9._-]{0,127})(?:@([0-9]+))?$/.exec(ref);
  if (!m)
    throw new KeelError(
      ErrorCode.usage,
      `explain: expected a spec file (.yaml, .yml, .json) or workflow[@version], got ${JSON.stringify(ref.slice(0, 80))}`,
      { field: 'spec' },
    );
  const version = m[2] === undefined ? undefined : Number(m[2]);
  if (version !== undefined && !(Number.isSafeInteger(version) && version >= 1))
    throw new KeelError(ErrorCode.usage, `explain: version: expected a positive whole number`, {
      field: 'version',
    });
  return { workflowId: m[1]!, ...(version === undefined ? {} : { version }) };
}

export function registerAuthoringCommands(program: Command, withContext: WithContext): void {
  program
    .command('explain')
    .description(
      'read a spec back in plain language: its trigger, steps, limits and risks (destructive tools, approvals, spend cap)',
    )
    .argument('<spec>', 'a spec file (YAML or JSON), or workflow[@version] from the store')
    .action(async (ref: string, _o: unknown, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        let spec: WorkflowSpec;
        if (isPlanModulePath(ref)) spec = (await ctx.keel.workflows.validatePlan(ref)).spec;
        else if (isSpecFileArg(ref))
          spec = ctx.keel.workflows.validate(readText(ref, 'spec', SPEC_LIMITS.maxBytes), ref).spec;
        else {
          const { workflowId, version } = parseWorkflowRef(ref);
          const record = await ctx.keel.workflows.get(ctx.tenant, workflowId, version);
          if (!record)
            throw new KeelError(
              ErrorCode.notFound,
              `workflow ${workflowId}${version === undefined ? '' : ` v${version}`} not found`,
              { workflowId, ...(version === undefined ? {} : { version }) },
            );
          spec = { ...record.spec, status: record.status };
        }
        const readBack = explainSpec(spec, ctx.keel.tools.catalog());
        if (ctx.json) printJson({ id: spec.id, version: spec.version, status: spec.status, ...readBack });
        else line(readBack.text);
      }),
    );
}
