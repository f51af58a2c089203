/**
 * `keel audit ls`: ledger entries across the tenant's runs, filtered exactly by run, workflow,
 * kind, actor, refusal code and time, oldest first, a page at a time (`--cursor`); `--counts`
 * counts them by kind instead. Read-only (store-access.ts). One line per entry for people — time,
 * short run id, seq, kind, the entry in plain language — or the API's JSON with --json.
 */
import { type Command, Option } from 'commander';
import pc from 'picocolors';
import type { AuditEntry, AuditFilter } from '../app/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { ENTRY_KINDS } from '../core/ledger/entry-kinds.ts';
import type { Entry } from '../core/ledger/index.ts';
import { excerpt } from '../core/spec/input-limits.ts';
import { auditCommand } from './audit-command.ts';
import type { WithContext } from './context.ts';
import { intOption } from './input.ts';
import { line, printJson } from './output.ts';

/** Who counts as the actor of an entry, for `--actor` (core/ledger/entry-actor.ts). */
const ACTOR_HELP = `
An entry's actor is who its payload names as having acted: the \`by\` of approval.resolved,
approval.simulated, step.reconciled, run.paused and run.resumed; the \`approvedBy\` of step.allowed;
and of a cancelled run.finished, the <by> of its reason "cancelled by <by>" or "cancelled by <by>: <why>".
Run roots and the engine's own entries name no actor. --code matches the \`code\` of step.refused and
run.finished entries. Every filter is exact; together they must all hold. --since is inclusive and
--until exclusive, on the time the entry was written. Entries come oldest first, ordered by
(time, run id, seq); --cursor continues after the last entry of a page, with the same filters.`;

interface LsOptions {
  run?: string;
  workflow?: string;
  kind?: string;
  actor?: string;
  code?: string;
  since?: string;
  until?: string;
  limit?: string;
  cursor?: string;
  counts?: boolean;
}

/** The entry in plain language, shortened; the kind alone if its payload says too little to describe. */
function summary(e: AuditEntry, describeEntry: (e: Entry) => string): string {
  try {
    return excerpt(describeEntry({ ...e, v: 1 } as Entry), 100);
  } catch {
    return e.kind;
  }
}

export function registerAuditQueryCommands(program: Command, withContext: WithContext): void {
  auditCommand(program)
    .command('ls')
    .description('ledger entries across runs, oldest first: filter by run, workflow, kind, actor, code, time')
    .option('--run <run>', 'entries of this run')
    .option('--workflow <id>', 'entries of runs of this workflow')
    .addOption(new Option('--kind <kind>', 'entries of this kind').choices([...ENTRY_KINDS]))
    .option('--actor <who>', 'entries naming this actor as who acted (see below)')
    .option('--code <code>', 'step.refused and run.finished entries with this code')
    .option('--since <time>', 'entries written at or after this ISO 8601 instant (with a zone)')
    .option('--until <time>', 'entries written before this ISO 8601 instant (with a zone)')
    .option('--limit <n>', 'page size, 1-500 (default 100)')
    .option('--cursor <cursor>', 'continue after a previous page (same filters)')
    .option('--counts', 'count the matching entries by kind instead of listing them')
    .addHelpText('after', ACTOR_HELP)
    .action(async (o: LsOptions, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const filter: AuditFilter = {
          ...(o.run !== undefined ? { runId: o.run } : {}),
          ...(o.workflow !== undefined ? { workflowId: o.workflow } : {}),
          ...(o.kind !== undefined ? { kind: o.kind } : {}),
          ...(o.actor !== undefined ? { actor: o.actor } : {}),
          ...(o.code !== undefined ? { code: o.code } : {}),
          ...(o.since !== undefined ? { since: o.since } : {}),
          ...(o.until !== undefined ? { until: o.until } : {}),
        };
        if (o.counts) {
          if (o.limit !== undefined || o.cursor !== undefined)
            throw new KeelError(
              ErrorCode.usage,
              '--counts: counts every matching entry; give it no --limit or --cursor',
              { field: o.limit !== undefined ? 'limit' : 'cursor' },
            );
          const r = await ctx.keel.audit.counts(ctx.tenant, filter);
          if (ctx.json) {
            printJson(r);
            return;
          }
          const found = Object.entries(r.counts).filter(([, n]) => n > 0);
          const width = Math.max(0, ...found.map(([k]) => k.length));
          for (const [kind, n] of found) line(`${kind.padEnd(width)}  ${n}`);
          line(`${found.length > 0 ? 'total'.padEnd(width) : 'total'}  ${r.total}`);
          return;
        }
        const page = await ctx.keel.audit.entries(ctx.tenant, {
          ...filter,
          ...(o.limit !== undefined ? { limit: intOption(o.limit, '--limit') } : {}),
          ...(o.cursor !== undefined ? { cursor: o.cursor } : {}),
        });
        if (ctx.json) {
          printJson(page);
          return;
        }
        // Loaded when entries are shown: `keel --help` reads none of the run's projections.
        const { describeEntry } = await import('../core/run/index.ts');
        if (page.entries.length === 0) line('no entries');
        for (const e of page.entries)
          line(
            `${pc.dim(e.at)}  ${e.runId.slice(7, 19)}  ${pc.dim(`#${e.seq}`)}  ${e.kind}  ${summary(e, describeEntry)}`,
          );
        if (page.next) line(pc.dim(`next: --cursor ${page.next}`));
      }),
    );
}
