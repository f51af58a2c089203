/**
 * Authoring for people who are not engineers: `keel explain` (any spec, or a stored
 * `workflow[@version]`, read back in plain language with its risks) and `keel draft` (a request in
 * plain words compiled offline into a DRAFT spec, shown with its read-back and questions, and
 * published as DRAFT only once a person confirms: --yes or the terminal prompt). docs/authoring.md.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import pc from 'picocolors';
import type { CompiledRequest, Draft, EventShape } from '../core/authoring/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { WorkflowSpec } from '../core/spec/index.ts';
import { SPEC_LIMITS } from '../core/spec/input-limits.ts';
import { isPlanModulePath } from '../plan/is-plan-module-path.ts';
import { actor, type WithContext } from './context.ts';
import { EXIT } from './exit-codes.ts';
import { readJson, readText } from './input.ts';
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
        const readBack = ctx.keel.workflows.explain(ctx.tenant, spec);
        if (ctx.json) printJson({ id: spec.id, version: spec.version, status: spec.status, ...readBack });
        else line(readBack.text);
      }),
    );
}

/** The sample events of `dir` (every *.json file holding an event), at most 500 files. */
async function readEventShapes(dir: string, named: boolean): Promise<EventShape[]> {
  if (!existsSync(dir)) {
    if (named)
      throw new KeelError(ErrorCode.usage, `--events ${dir}: no such directory`, { field: 'events' });
    return [];
  }
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .slice(0, 500);
  const { eventShapesOf } = await import('../core/authoring/index.ts');
  return eventShapesOf(files.map((f) => readJson(join(dir, f), 'event')));
}

async function confirmOnTerminal(id: string, version: number): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`Publish ${id} v${version} as DRAFT? [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

async function printDraft(d: Draft): Promise<void> {
  const spec = d.spec ?? d.partial;
  if (spec) {
    // Through Keel's own module: the bundle (scripts/bundle-dist.mjs) gives a lazily imported
    // CommonJS package a default export only.
    const { specYaml } = await import('../core/spec/spec-yaml.ts');
    line(
      pc.bold(
        `# ${d.spec ? 'Draft' : 'Incomplete draft'} ${spec.id} v${spec.version} (DRAFT)${d.specHash ? ` ${pc.dim(d.specHash)}` : ''}`,
      ),
    );
    line(specYaml(spec));
    line();
  }
  if (d.readBack) {
    line(pc.bold('# Read-back'));
    line(d.readBack.text);
    line();
  }
  if (d.notes.length) {
    line(pc.bold('# Notes'));
    for (const n of d.notes) line(`- ${n}`);
    line();
  }
  if (d.questions.length) {
    line(
      pc.bold(pc.yellow(`# Questions (${d.questions.length}): answer them in the request and draft again`)),
    );
    for (const [i, q] of d.questions.entries()) line(`${i + 1}. ${q.question}`);
  }
}

export function registerDraftCommand(program: Command, withContext: WithContext): void {
  program
    .command('draft')
    .description(
      'turn a request in plain words into a DRAFT spec over the tool catalog: prints the spec, its read-back and any questions; publishes it as DRAFT only when confirmed (--yes, or the prompt)',
    )
    .argument(
      '<request>',
      'what the workflow should do, e.g. "when a refund is requested, refund anyone under $50"',
    )
    .option('--yes', 'publish the draft as DRAFT without asking (only when it has no questions)')
    .option('--id <id>', 'the workflow id (default: derived from the trigger and steps)')
    .option(
      '--events <dir>',
      'sample events the trigger and arguments are matched against (default ./events)',
    )
    .option('--as <name>', 'who publishes (env KEEL_USER)')
    .option(
      '--compiler <kind>',
      'offline (default: the documented grammar, no model) or model (the configured --model-provider; its answer is shown and checked the same way)',
      'offline',
    )
    .action(
      async (
        request: string,
        o: { yes?: boolean; id?: string; events?: string; as?: string; compiler: string },
        cmd: Command,
      ) =>
        withContext(cmd, async (ctx) => {
          // Loaded when a draft is made: `keel --help` reads none of the compiler.
          const { compileRequest, draftSpec, MAX_REQUEST_LENGTH } = await import(
            '../core/authoring/index.ts'
          );
          const { isSpecId } = await import('../core/spec/validate-spec.ts');
          if (request.length > MAX_REQUEST_LENGTH)
            throw new KeelError(
              ErrorCode.usage,
              `request: at most ${MAX_REQUEST_LENGTH} characters, got ${request.length}`,
              {
                field: 'request',
              },
            );
          if (o.id !== undefined && !isSpecId(o.id))
            throw new KeelError(
              ErrorCode.usage,
              `--id: expected a workflow id of lowercase letters, digits, ".", "_" or "-"`,
              {
                field: 'id',
              },
            );
          // The samples' values, and the values the tenant's reviewed workflows test ("enterprise").
          const catalog = ctx.keel.workflows.draftCatalog(
            ctx.tenant,
            await ctx.keel.workflows.draftEvents(
              ctx.tenant,
              await readEventShapes(o.events ?? 'events', o.events !== undefined),
            ),
          );
          const options = o.id === undefined ? {} : { id: o.id };
          let modelAnswer: unknown;
          let compiled: CompiledRequest;
          if (o.compiler === 'offline') compiled = compileRequest(request, catalog, options);
          else if (o.compiler === 'model') {
            if (!ctx.modelProvider)
              throw new KeelError(
                ErrorCode.usage,
                '--compiler model: no model provider is configured (--model-provider or KEEL_MODEL_PROVIDER; docs/models.md)',
                { field: 'compiler' },
              );
            const { compileWithModel } = await import('../app/model-compile.ts');
            ({ compiled, answer: modelAnswer } = await compileWithModel(
              ctx.modelProvider,
              request,
              catalog,
              options,
            ));
          } else
            throw new KeelError(
              ErrorCode.usage,
              `--compiler: expected offline or model, got ${JSON.stringify(o.compiler)}`,
              { field: 'compiler' },
            );
          // Whatever compiled it, the same checks: spec schema, tool registry, argument schemas.
          const draft = draftSpec(compiled, catalog);
          let published: Awaited<ReturnType<typeof ctx.keel.workflows.publishObject>> | undefined;
          let confirmed = false;
          if (draft.publishable && draft.spec) {
            if (o.yes === true) confirmed = true;
            else if (process.stdin.isTTY === true && !ctx.json) {
              await printDraft(draft);
              confirmed = await confirmOnTerminal(draft.spec.id, draft.spec.version);
              if (!confirmed)
                throw new KeelError(ErrorCode.usage, 'draft: not confirmed, nothing was published', {
                  field: 'yes',
                });
            }
            // Only ever as DRAFT: publishing refuses any other status, and the compiler writes no other.
            if (confirmed)
              published = await ctx.keel.workflows.publishObject(ctx.tenant, draft.spec, actor(o.as));
          }
          if (ctx.json)
            printJson({
              ...draft,
              compiler: o.compiler,
              ...(modelAnswer === undefined ? {} : { modelAnswer }),
              published: published
                ? {
                    created: published.created,
                    workflowId: published.record.workflowId,
                    version: published.record.version,
                    status: published.record.status,
                    specHash: published.record.specHash,
                  }
                : null,
            });
          else {
            if (modelAnswer !== undefined) {
              line(pc.bold('# The model answered'));
              line(JSON.stringify(modelAnswer, null, 2));
              line();
            }
            if (!(process.stdin.isTTY === true && draft.publishable && o.yes !== true))
              await printDraft(draft);
            if (published)
              line(
                `${published.created ? 'published' : 'already published'} ${published.record.workflowId} v${published.record.version} (${published.record.status}) ${pc.dim(published.record.specHash)}`,
              );
            else if (draft.publishable)
              line(pc.dim(`not published: run again with --yes to publish it as DRAFT`));
          }
          // A refusal (exit 2, changing nothing: a store this command created is removed again),
          // after the draft and its questions are printed.
          if (!draft.publishable)
            throw new KeelError(
              ErrorCode.usage,
              `not published: the draft has ${draft.questions.length} question${draft.questions.length === 1 ? '' : 's'}; answer ${draft.questions.length === 1 ? 'it' : 'them'} in the request and draft again`,
              { field: 'request', questions: draft.questions.length },
            );
          return EXIT.ok;
        }),
    );
}
