/**
 * The lifecycle commands (docs/lifecycle.md): `keel promote` (one step, gated; `--override
 * --reason` records a person promoting past an unmet gate), `keel test` (a version's tests,
 * simulated; exit 10 when one fails), `keel shadow report`, `keel gate` (judge a move without
 * making it), `keel replay-gate`, `keel rollout` (split, advance, roll back), `keel diff` and
 * `keel promotions` (the workflow's hash-chained lifecycle records). The CLI acts as a person.
 */
import { basename } from 'node:path';
import type { Command } from 'commander';
import pc from 'picocolors';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { actor, type CliContext, type WithContext } from './context.ts';
import { EXIT } from './exit-codes.ts';
import { intOption, readJson } from './input.ts';
import {
  chainText,
  diffLines,
  gateLines,
  recordLines,
  rolloutLines,
  shadowReportLines,
  testLines,
} from './lifecycle-output.ts';
import { line, printJson } from './output.ts';

const version = (v: string | undefined) => (v === undefined ? {} : { version: intOption(v, '--version') });

function overrideOf(o: { override?: boolean; reason?: string }): { override?: string } {
  if (o.override !== true) {
    if (o.reason !== undefined)
      throw new KeelError(ErrorCode.usage, '--reason: give it with --override (why the gate is overridden)', {
        field: 'reason',
      });
    return {};
  }
  if (o.reason === undefined || o.reason.trim() === '')
    throw new KeelError(
      ErrorCode.usage,
      '--override: needs --reason "..." (why a person promotes without the evidence)',
      {
        field: 'reason',
      },
    );
  return { override: o.reason };
}

function share(value: string, field: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1)
    throw new KeelError(
      ErrorCode.usage,
      `${field}: expected a share from 0 to 1 (0.05 is 5 points), got ${JSON.stringify(value)}`,
      {
        field,
      },
    );
  return n;
}

export function registerLifecycleCommands(program: Command, withContext: WithContext): void {
  program
    .command('promote')
    .description(
      'move a version one step (DRAFT -> TESTING -> SHADOW -> LIVE -> AUTONOMOUS) when its gate is met, or down any step; records who, when and the evidence',
    )
    .argument('<workflow>', 'workflow id')
    .argument('<status>', 'new status')
    .option('--version <n>', 'version to promote (default: the newest)')
    .option('--as <name>', 'who promotes (env KEEL_USER)')
    .option('--override', 'promote although the gate is not met (needs --reason; recorded with who gave it)')
    .option('--reason <text>', 'why the gate is overridden')
    .action(
      async (
        workflowId: string,
        status: string,
        o: { version?: string; as?: string; override?: boolean; reason?: string },
        cmd: Command,
      ) =>
        withContext(cmd, async (ctx) => {
          const { promotion: p, report } = await ctx.keel.lifecycle.promote(
            ctx.tenant,
            workflowId,
            status.toUpperCase(),
            { by: actor(o.as), kind: 'human' },
            { ...version(o.version), ...overrideOf(o) },
          );
          if (ctx.json) printJson({ promotion: p, report });
          else {
            line(
              `${p.workflowId} v${p.version}: ${p.from} -> ${p.to} by ${p.by}${p.override ? pc.yellow(` (gate overridden: ${p.override.reason})`) : ''}`,
            );
            if (report) for (const l of gateLines(report).slice(1)) line(l);
          }
        }),
    );

  program
    .command('test')
    .description(
      "run a version's tests (its tests: section, and any event files given) in simulated mode; exits 10 when one fails",
    )
    .argument('<workflow>', 'workflow id')
    .argument('[events...]', 'event files to run as well (no expectations: they pass unless their run fails)')
    .option('--version <n>', 'version to test (default: the newest)')
    .action(async (workflowId: string, events: string[], o: { version?: string }, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const report = await ctx.keel.lifecycle.test(ctx.tenant, workflowId, {
          ...version(o.version),
          events: events.map((f) => ({ name: basename(f), event: readJson(f, 'event') })),
        });
        if (ctx.json) printJson(report);
        else for (const l of testLines(report)) line(l);
        return report.passed ? EXIT.ok : EXIT.evidenceUnmet;
      }),
    );

  const shadow = program
    .command('shadow')
    .description('SHADOW versions, run beside live runs in simulated mode');
  shadow
    .command('report')
    .description('how a SHADOW version agreed with the live runs it shadowed, and where it did not')
    .argument('<workflow>', 'workflow id')
    .option('--version <n>', 'the SHADOW version (default: the newest SHADOW one)')
    .option('--since <time>', 'only comparisons kept since this ISO time')
    .action(async (workflowId: string, o: { version?: string; since?: string }, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const r = await ctx.keel.lifecycle.shadowReport(ctx.tenant, workflowId, {
          ...version(o.version),
          ...(o.since ? { since: o.since } : {}),
        });
        if (ctx.json) printJson(r);
        else for (const l of shadowReportLines(r)) line(l);
      }),
    );

  program
    .command('gate')
    .description(
      'judge the gate a version must meet to move to a status, without moving it; exits 10 when it is not met',
    )
    .argument('<workflow>', 'workflow id')
    .argument('<status>', 'the status it would move to')
    .option('--version <n>', 'version (default: the newest)')
    .action(async (workflowId: string, status: string, o: { version?: string }, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const r = await ctx.keel.lifecycle.gate(
          ctx.tenant,
          workflowId,
          status.toUpperCase(),
          version(o.version),
        );
        if (ctx.json) printJson(r);
        else for (const l of gateLines(r)) line(l);
        return r.met ? EXIT.ok : EXIT.evidenceUnmet;
      }),
    );

  program
    .command('replay-gate')
    .description(
      "re-plan the LIVE version's last runs against a version, calling nothing; exits 10 when any would differ",
    )
    .argument('<workflow>', 'workflow id')
    .option('--version <n>', 'the candidate version (default: the newest)')
    .option('--runs <n>', 'how many of the last live runs (default: the gate setting, 50)')
    .action(async (workflowId: string, o: { version?: string; runs?: string }, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const r = await ctx.keel.lifecycle.replayGate(ctx.tenant, workflowId, {
          ...version(o.version),
          ...(o.runs !== undefined ? { runs: intOption(o.runs, '--runs') } : {}),
        });
        if (ctx.json) printJson(r);
        else {
          line(
            `${r.workflowId} v${r.candidate} re-planned on ${r.runs} runs of v${r.against}: ${r.diverged.length === 0 ? pc.green('every one the same') : pc.red(`${r.diverged.length} would differ${r.wouldNotStart > 0 ? ` (${r.wouldNotStart} would not start)` : ''}`)}`,
          );
          for (const d of r.diverged) line(`  - ${d.sentence} ${pc.dim(d.runId)}`);
        }
        return r.diverged.length === 0 ? EXIT.ok : EXIT.evidenceUnmet;
      }),
    );

  program
    .command('rollout')
    .description(
      'split traffic between the LIVE version and a SHADOW one by event bucket; without options, show the rollout',
    )
    .argument('<workflow>', 'workflow id')
    .option('--to <version>', 'start rolling out this SHADOW version (its gate to LIVE must be met)')
    .option('--percent <n>', 'with --to: the share of events it gets first (1-99)')
    .option('--steps <list>', 'with --to: the stages after it, e.g. 50,100 (default)')
    .option('--auto', 'with --to: advance, and roll back, by itself on the figures')
    .option(
      '--threshold <share>',
      'with --to: how much worse its refusal or failure rate may be (default 0.05)',
    )
    .option(
      '--min-runs <n>',
      'with --to: runs of each version a stage needs before it is judged (default 20)',
    )
    .option(
      '--sticky-by <key>',
      'with --to: what keeps events on one version: subject (default), payload.<field>[.<field>...], or event',
    )
    .option('--advance', 'go to the next stage, if the figures allow it')
    .option('--rollback', 'give all events back to the old version; the new one goes back to SHADOW')
    .option('--override', 'with --to: start although the gate to LIVE is not met (needs --reason)')
    .option('--reason <text>', 'why (an override, or a rollback)')
    .option('--as <name>', 'who decides (env KEEL_USER)')
    .action(
      async (
        workflowId: string,
        o: {
          to?: string;
          percent?: string;
          steps?: string;
          auto?: boolean;
          threshold?: string;
          minRuns?: string;
          stickyBy?: string;
          advance?: boolean;
          rollback?: boolean;
          override?: boolean;
          reason?: string;
          as?: string;
        },
        cmd: Command,
      ) =>
        withContext(cmd, async (ctx) => {
          const acts = [o.to !== undefined, o.advance === true, o.rollback === true].filter(Boolean).length;
          if (acts > 1)
            throw new KeelError(ErrorCode.usage, 'rollout: give one of --to, --advance or --rollback', {
              field: 'to',
            });
          const by = { by: actor(o.as), kind: 'human' as const };
          const lc = ctx.keel.lifecycle;
          if (o.to !== undefined) {
            if (o.percent === undefined)
              throw new KeelError(
                ErrorCode.usage,
                '--to: needs --percent <n>, the share of events it gets first',
                {
                  field: 'percent',
                },
              );
            const r = await lc.rollout.start(ctx.tenant, workflowId, intOption(o.to, '--to'), by, {
              percent: intOption(o.percent, '--percent'),
              ...(o.steps !== undefined
                ? { steps: o.steps.split(',').map((x) => intOption(x.trim(), '--steps')) }
                : {}),
              ...(o.auto ? { auto: true } : {}),
              ...(o.threshold !== undefined ? { threshold: share(o.threshold, '--threshold') } : {}),
              ...(o.minRuns !== undefined ? { minRuns: intOption(o.minRuns, '--min-runs') } : {}),
              ...(o.stickyBy !== undefined ? { stickyBy: o.stickyBy } : {}),
              ...overrideOf(o),
            });
            if (ctx.json) printJson(r);
            else for (const l of rolloutLines(workflowId, r.rollout)) line(l);
            return;
          }
          if (o.advance || o.rollback) {
            const r = o.advance
              ? await lc.rollout.advance(ctx.tenant, workflowId, by)
              : await lc.rollout.rollback(ctx.tenant, workflowId, by, o.reason ?? '');
            if (ctx.json) printJson(r);
            else for (const l of rolloutLines(workflowId, r.rollout, r.verdict)) line(l);
            return;
          }
          const s = await lc.rollout.status(ctx.tenant, workflowId);
          if (ctx.json) printJson(s);
          else
            for (const l of rolloutLines(workflowId, s.rollout, s.verdict, s.triggerDisagreements)) line(l);
        }),
    );

  program
    .command('diff')
    .description('what changed between two versions of a workflow, in plain language')
    .argument('<workflow>', 'workflow id')
    .argument('<from>', 'version')
    .argument('<to>', 'version')
    .option(
      '--explain',
      'also read both versions back (keel explain) and list the risks the change adds and removes',
    )
    .action(async (workflowId: string, a: string, b: string, o: { explain?: boolean }, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const from = intOption(a, '<from>');
        const to = intOption(b, '<to>');
        const d = await ctx.keel.lifecycle.diff(ctx.tenant, workflowId, from, to);
        const explained = o.explain === true ? await explainBoth(ctx, workflowId, from, to) : undefined;
        if (ctx.json) printJson(explained ? { ...d, explain: explained } : d);
        else {
          for (const l of diffLines(workflowId, d)) line(l);
          if (explained) {
            line();
            line(`Read-back of v${to}:`);
            line(explained.to.text);
            line();
            line(`Risks v${to} adds: ${explained.risksAdded.length ? '' : 'none'}`);
            for (const r of explained.risksAdded) line(`  + ${r}`);
            line(`Risks v${to} removes: ${explained.risksRemoved.length ? '' : 'none'}`);
            for (const r of explained.risksRemoved) line(`  - ${r}`);
          }
        }
      }),
    );

  program
    .command('promotions')
    .description(
      "a workflow's lifecycle records (promotions, demotions, rollouts), and whether their hash chain verifies",
    )
    .argument('<workflow>', 'workflow id')
    .action(async (workflowId: string, _o: unknown, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const { records, chain } = await ctx.keel.lifecycle.records(ctx.tenant, workflowId);
        if (ctx.json) printJson({ records, chain });
        else {
          for (const l of recordLines(records)) line(l);
          line(chainText(workflowId, records.length, chain));
        }
        return chain.ok ? EXIT.ok : EXIT.verificationFailed;
      }),
    );
}

/** Both versions read back (explainSpec), and the risk lines one has and the other has not. */
async function explainBoth(ctx: CliContext, workflowId: string, from: number, to: number) {
  const read = async (version: number) => {
    const v = await ctx.keel.workflows.get(ctx.tenant, workflowId, version);
    if (!v)
      throw new KeelError(ErrorCode.notFound, `workflow ${workflowId} v${version} not found`, {
        workflowId,
        version,
      });
    return ctx.keel.workflows.explain(ctx.tenant, { ...v.spec, status: v.status });
  };
  const [a, b] = [await read(from), await read(to)];
  return {
    from: a,
    to: b,
    risksAdded: b.risks.filter((r) => !a.risks.includes(r)),
    risksRemoved: a.risks.filter((r) => !b.risks.includes(r)),
  };
}
