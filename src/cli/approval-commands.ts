/**
 * The approval commands: `keel approvals ls` (pending approvals of the tenant, as their ledgers
 * record them; a run that fails verification is flagged, never shown as its row), and `keel approve`
 * and `keel deny` (decide a run's pending approval, recording who decided, then continue or stop
 * the run here, or leave the rest to `keel worker` processes with --enqueue).
 */
import type { Command } from 'commander';
import pc from 'picocolors';
import { actor, type WithContext } from './context.ts';
import { line, printJson, statusColor } from './output.ts';

export function registerApprovalCommands(program: Command, withContext: WithContext): void {
  const approvals = program.command('approvals').description('pending approvals');
  approvals
    .command('ls')
    .description('list pending approvals')
    .action(async (_o: unknown, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const list = await ctx.keel.approvals.list(ctx.tenant);
        if (ctx.json) {
          printJson(list);
          return;
        }
        if (list.length === 0) line('no pending approvals');
        for (const a of list) {
          if (a.invalid)
            line(
              `${a.runId}  ${pc.red(`fails verification at seq ${a.invalid.seq} (${a.invalid.code}); not shown, cannot be decided`)} — see keel verify ${a.runId}`,
            );
          else line(`${a.runId}  ${a.tool} ${JSON.stringify(a.args)}  ${pc.dim(a.reason)}`);
        }
      }),
    );

  for (const decision of ['approve', 'deny'] as const) {
    program
      .command(decision)
      .description(`${decision} the pending approval of a run, then continue (or stop) it`)
      .argument('<run>', 'run id')
      .option('--as <name>', 'who decides (env KEEL_USER)')
      .option('--note <text>', 'a note recorded with the decision')
      .option('--enqueue', 'leave the rest of the run to `keel worker` processes')
      .action(async (runId: string, o: { as?: string; note?: string; enqueue?: boolean }, cmd: Command) =>
        withContext(cmd, async (ctx) => {
          const by = actor(o.as);
          const walk = o.enqueue ? { walk: 'enqueue' as const } : {};
          const r =
            decision === 'approve'
              ? await ctx.keel.approvals.approve(ctx.tenant, runId, by, o.note, walk)
              : await ctx.keel.approvals.deny(ctx.tenant, runId, by, o.note, walk);
          if (ctx.json) printJson(r);
          else
            line(
              `${decision === 'approve' ? 'approved' : 'denied'} by ${by}; run ${r.runId} is ${statusColor(r.status)}${r.reason ? ` (${r.reason})` : ''}`,
            );
        }),
      );
  }
}
