/**
 * What the event index knows (docs/http.md, "Events"): `keel events show <id> [--source s]` reads
 * an event's first delivery (its content hash and the runs it chose), `keel events conflicts`
 * lists the redeliveries refused as event_conflict, the most recent first, and `keel events ls
 * --unrouted` the tenant's unrouted inbox (docs/events.md); those only read. `keel events
 * redeliver <id>` routes an unrouted event again through the one emit path.
 */
import type { Command } from 'commander';
import pc from 'picocolors';
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { WithContext } from './context.ts';
import { intOption } from './input.ts';
import { line, printJson } from './output.ts';

/** The source `keel emit` names an event by when the event gives none. */
export const CLI_CHANNEL = 'cli';

export function registerEventCommands(program: Command, withContext: WithContext): void {
  const events = program
    .command('events')
    .description(
      'what the event index knows: an event’s first delivery, conflicting redeliveries, and the unrouted inbox',
    );

  events
    .command('ls')
    .description(
      'the unrouted inbox: events no workflow took and hook deliveries whose mapping failed, most recently received first',
    )
    .option('--unrouted', 'the unrouted inbox (the only listing: kept for clarity)')
    .option('--state <state>', 'waiting (default: still in the inbox), redelivered, or all')
    .option('--limit <n>', 'at most this many (1-500, default 100)')
    .action(async (o: { unrouted?: boolean; state?: string; limit?: string }, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const list = await ctx.keel.events.unrouted(ctx.tenant, {
          ...(o.state !== undefined ? { state: o.state as 'waiting' } : {}),
          ...(o.limit !== undefined ? { limit: intOption(o.limit, '--limit') } : {}),
        });
        if (ctx.json) {
          printJson(list);
          return;
        }
        if (list.length === 0) line(`no unrouted events in tenant ${ctx.tenant}`);
        for (const e of list) {
          const what =
            e.eventId === null
              ? `a delivery of ${e.source}`
              : `event ${e.eventId} of source ${e.source}${e.type ? ` (${e.type})` : ''}`;
          line(
            `${e.receivedAt}  ${e.id}  ${what}: ${pc.yellow(e.reason)}${e.count > 1 ? `, ${e.count} times` : ''}`,
          );
          line(`    ${e.detail}`);
          if (e.redelivered)
            line(`    redelivered ${e.redelivered.at}: runs ${e.redelivered.runs.join(', ') || '(none)'}`);
        }
      }),
    );

  events
    .command('redeliver')
    .description(
      'route an unrouted event again (same source and id): runs it now starts leave it marked redelivered',
    )
    .argument('<id>', 'the inbox entry (keel events ls --unrouted)')
    .option(
      '--hooks <file>',
      'the hooks file that maps a kept hook delivery again (default: as keel serve finds it)',
    )
    .option('--enqueue', 'create the runs and leave them to `keel worker` processes')
    .action(async (id: string, o: { hooks?: string; enqueue?: boolean }, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        // Loaded when the command runs: `keel --help` loads only the command parser (cli-startup test).
        const { hooksFileOf, readHooksFile } = await import('./hooks-file.ts');
        const { remapWith } = await import('../app/unrouted.ts');
        // `--hooks` is also the program's option (keel serve, keel hooks): given after the command,
        // commander may hand it to the program, so read it from either.
        const file = hooksFileOf(o.hooks ?? (cmd.optsWithGlobals() as { hooks?: string }).hooks);
        const r = await ctx.keel.events.redeliver(ctx.tenant, id, {
          ...(o.enqueue ? { walk: 'enqueue' as const } : {}),
          ...(file ? { remap: remapWith(readHooksFile(file)) } : {}),
        });
        if (ctx.json) {
          printJson(r);
          return;
        }
        if (r.state === 'unrouted') line(`still unrouted: ${r.unrouted?.reason}: ${r.unrouted?.detail}`);
        else if (r.runs.length === 0)
          line(`redelivered: kept anew as ${r.unrouted?.id} (${r.unrouted?.reason})`);
        for (const run of r.runs)
          line(
            `${run.created ? 'run' : 'existing run'} ${run.runId} ${run.workflowId} v${run.version}: ${run.status}`,
          );
      }),
    );

  events
    .command('show')
    .description('the first delivery of an event: when, its content hash and fields, the runs it started')
    .argument('<id>', 'the event id')
    .option(
      '--source <source>',
      'the event source (default cli: what `keel emit` names an event without one)',
    )
    .action(async (id: string, o: { source?: string }, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const source = o.source ?? CLI_CHANNEL;
        const d = await ctx.keel.events.delivered(ctx.tenant, source, id);
        if (!d)
          throw new KeelError(
            ErrorCode.notFound,
            `no event ${JSON.stringify(id)} of source ${JSON.stringify(source)} was delivered in tenant ${ctx.tenant}`,
            { source, eventId: id },
          );
        if (ctx.json) {
          printJson(d);
          return;
        }
        line(
          `event ${d.eventId} of source ${d.source}: ${d.type}${d.subject ? ` about ${d.subject}` : ''}, time ${d.time}`,
        );
        line(`  first delivered ${d.deliveredAt}; content ${d.eventHash}`);
        if (d.runs.length === 0) line('  started no run (no LIVE or AUTONOMOUS workflow took it)');
        for (const r of d.runs)
          line(
            `  run ${r.runId} ${r.workflowId} v${r.version}${r.split ? ` (rollout bucket ${r.split.bucket}${r.split.stickyBy ? ` by ${r.split.stickyBy}` : ''})` : ''}`,
          );
      }),
    );

  events
    .command('conflicts')
    .description(
      'redeliveries refused as event_conflict (same source and id, other content), most recent first',
    )
    .option('--source <source>', 'only this source')
    .option('--id <id>', 'only this event id')
    .option('--limit <n>', 'at most this many (1-500, default 100)')
    .action(async (o: { source?: string; id?: string; limit?: string }, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const list = await ctx.keel.events.conflicts(ctx.tenant, {
          ...(o.source !== undefined ? { source: o.source } : {}),
          ...(o.id !== undefined ? { eventId: o.id } : {}),
          ...(o.limit !== undefined ? { limit: intOption(o.limit, '--limit') } : {}),
        });
        if (ctx.json) {
          printJson(list);
          return;
        }
        if (list.length === 0) line(`no conflicting redeliveries in tenant ${ctx.tenant}`);
        for (const c of list)
          line(
            `${c.lastAt}  event ${c.eventId} of source ${c.source}: ${pc.yellow(c.fields.join(', ') || 'content')} differ${c.fields.length === 1 ? 's' : ''} from the first delivery; refused ${c.count} time${c.count === 1 ? '' : 's'} since ${c.firstAt}`,
          );
      }),
    );
}
