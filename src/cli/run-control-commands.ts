/**
 * A person's hold on a run from the command line: `keel cancel` (ends it; a tool call in progress
 * in this process is aborted), `keel pause` (no step starts until resumed) and `keel resume`
 * (walks on here, or leaves the rest to a worker with --enqueue). Each records who did it in the
 * run's ledger and prints the run's status (JSON with --json).
 */
import type { Command } from 'commander';
import type { RunSummary } from '../app/index.ts';
import { actor, type CliContext, type WithContext } from './context.ts';
import { line, printJson, statusColor } from './output.ts';
import { refuseIfHeldByModel } from './run-commands.ts';

function print(ctx: CliContext, verb: string, r: RunSummary): undefined {
  if (ctx.json) printJson(r);
  else line(`${verb} run ${r.runId}: ${statusColor(r.status)}${r.reason ? ` (${r.reason})` : ''}`);
  // Resumed while the provider is still down: held again, exit 6 (run-commands.ts).
  refuseIfHeldByModel([r]);
  return undefined;
}

export function registerRunControlCommands(program: Command, withContext: WithContext): void {
  program
    .command('cancel')
    .description('end a run that has not finished (a finished one: exit 4)')
    .argument('<run>', 'run id')
    .option('--reason <text>', 'why, recorded with the cancellation')
    .option('--as <name>', 'who cancels (env KEEL_USER)')
    .action(async (runId: string, o: { reason?: string; as?: string }, cmd: Command) =>
      withContext(cmd, async (ctx) =>
        print(
          ctx,
          'cancelled',
          await ctx.keel.runs.cancel(ctx.tenant, runId, {
            by: actor(o.as),
            ...(o.reason ? { reason: o.reason } : {}),
          }),
        ),
      ),
    );
  program
    .command('pause')
    .description('hold a running run: the step in progress finishes, no other starts until `keel resume`')
    .argument('<run>', 'run id')
    .option('--reason <text>', 'why, recorded with the pause')
    .option('--as <name>', 'who pauses (env KEEL_USER)')
    .action(async (runId: string, o: { reason?: string; as?: string }, cmd: Command) =>
      withContext(cmd, async (ctx) =>
        print(
          ctx,
          'paused',
          await ctx.keel.runs.pause(ctx.tenant, runId, {
            by: actor(o.as),
            ...(o.reason ? { reason: o.reason } : {}),
          }),
        ),
      ),
    );
  program
    .command('resume')
    .alias('unpause')
    .description(
      'resume a paused run and walk on (or leave it to a worker with --enqueue); a run interrupted by a crash is continued by `keel recover`',
    )
    .argument('<run>', 'run id')
    .option('--as <name>', 'who resumes (env KEEL_USER)')
    .option('--enqueue', 'leave the rest of the run to a worker instead of walking it here')
    .action(async (runId: string, o: { as?: string; enqueue?: boolean }, cmd: Command) =>
      withContext(cmd, async (ctx) =>
        print(
          ctx,
          'resumed',
          await ctx.keel.runs.resume(ctx.tenant, runId, {
            by: actor(o.as),
            ...(o.enqueue ? { walk: 'enqueue' as const } : {}),
          }),
        ),
      ),
    );
}
