/**
 * `keel runs ls`: a tenant's runs newest first, a page at a time; filtered by status, workflow and
 * mode, found by subject (`--subject`, exactly; `--subject-prefix`) or run id (`--id`, whole or its
 * first 8+ hex digits), and jumped to a date (`--before`: the runs created before it; `--since`: at
 * or after it), each time an RFC 3339 instant checked like the API's. `--json` prints the page;
 * the text lines show a subject quoted, its direction controls as escapes (core/visible-text.ts).
 */
import { type Command, Option } from 'commander';
import pc from 'picocolors';
import { requireInstantBound } from '../core/instant.ts';
import { RUN_STATUSES, type RunStatus } from '../core/ledger/run-entries.ts';
import { runIdPrefix, subjectTerm } from '../core/run/run-search.ts';
import { visibleText } from '../core/visible-text.ts';
import type { WithContext } from './context.ts';
import { intOption } from './input.ts';
import { line, printJson, statusColor } from './output.ts';

interface LsOptions {
  status?: RunStatus;
  workflow?: string;
  mode?: 'live' | 'test' | 'shadow';
  subject?: string;
  subjectPrefix?: string;
  id?: string;
  before?: string;
  since?: string;
  limit: string;
  cursor?: string;
}

export function registerRunsLs(runs: Command, withContext: WithContext): void {
  runs
    .command('ls')
    .description('list runs, newest first; find them by subject or id, jump to a date with --before')
    .addOption(new Option('--status <status>', 'only runs with this status').choices([...RUN_STATUSES]))
    .option('--workflow <id>', 'only runs of this workflow')
    .addOption(
      new Option('--mode <mode>', 'only live runs, or only simulated ones (tests, shadows)').choices([
        'live',
        'test',
        'shadow',
      ]),
    )
    .option('--subject <subject>', "only runs whose event's subject is exactly this (a ticket: T-1)")
    .option('--subject-prefix <prefix>', 'only runs whose subject starts with this')
    .option('--id <run>', 'the run with this id, or whose id starts with these 8+ hex digits')
    .option('--before <time>', 'only runs created before this time (RFC 3339): jump to a date')
    .option('--since <time>', 'only runs created at or after this time (RFC 3339)')
    .option('--limit <n>', 'page size', '50')
    .option('--cursor <cursor>', 'continue after a previous page (same filters)')
    .action(async (o: LsOptions, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const page = await ctx.keel.runs.list(ctx.tenant, {
          ...(o.status ? { status: o.status } : {}),
          ...(o.workflow ? { workflowId: o.workflow } : {}),
          ...(o.mode ? { mode: o.mode } : {}),
          // Checked here so a refusal names the flag the person typed (--before, not the API's until).
          ...(o.subject !== undefined ? { subject: subjectTerm(o.subject, '--subject') } : {}),
          ...(o.subjectPrefix !== undefined
            ? { subjectPrefix: subjectTerm(o.subjectPrefix, '--subject-prefix') }
            : {}),
          ...(o.id !== undefined ? { runId: runIdPrefix(o.id, '--id') } : {}),
          ...(o.before !== undefined ? { until: requireInstantBound('--before', o.before) } : {}),
          ...(o.since !== undefined ? { since: requireInstantBound('--since', o.since) } : {}),
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
            `${r.runId}  ${r.workflowId} v${r.version}  ${statusColor(r.status)}${r.mode ? `  ${pc.cyan(r.mode)}` : ''}${r.subject ? `  ${visibleText(JSON.stringify(r.subject))}` : ''}  ${pc.dim(r.createdAt)}`,
          );
        if (page.next) line(pc.dim(`more: --cursor ${page.next}`));
      }),
    );
}
