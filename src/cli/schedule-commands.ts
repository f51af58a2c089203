/**
 * `keel schedules ls [--json]` (docs/events.md, "Schedules"): the tenant's scheduled workflows —
 * each schedule trigger of a LIVE or AUTONOMOUS version — with the last fire the event index holds
 * and the next fire time. Reads only; the scheduler runs in `keel serve` and `keel worker`.
 */
import type { Command } from 'commander';
import type { WithContext } from './context.ts';
import { line, printJson } from './output.ts';

export function registerScheduleCommands(program: Command, withContext: WithContext): void {
  const schedules = program
    .command('schedules')
    .description('scheduled workflows: their schedules, last and next fire times');

  schedules
    .command('ls')
    .description('each schedule of a LIVE or AUTONOMOUS version, with its last and next fire')
    .action(async (_o: unknown, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        // Loaded when the command runs: `keel --help` loads only the command parser (cli-startup test).
        const { scheduledWorkflows } = await import('../app/scheduler.ts');
        const list = await scheduledWorkflows(ctx.keel.store, ctx.tenant, Date.now());
        if (ctx.json) {
          printJson(list);
          return;
        }
        if (list.length === 0) line(`no scheduled workflows in tenant ${ctx.tenant}`);
        for (const w of list)
          line(
            `${w.workflowId} v${w.version}  "${w.schedule.cron}" ${w.schedule.timezone} (missed: ${w.schedule.missed})  next ${w.nextFire ?? '(none within five years)'}  last ${w.lastFire ?? '(never fired)'}`,
          );
      }),
    );
}
