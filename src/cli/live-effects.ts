/**
 * Before a command calls tools for real where it was not shown to behave — a run's tools again
 * (`keel fork --mode branch`, `keel rerun`), or a version not yet LIVE (`keel run --live`):
 * what it will call — the steps of the version not completed before the fork point, with each
 * tool's effect, destructive ones marked — and a person's confirmation. `--yes` confirms ahead;
 * without it the list is shown on stderr and the answer read from a terminal. Without a terminal
 * (a script, a pipe) and without `--yes`, nothing is created: a usage error naming --yes.
 * Steps whose tools only read need no confirmation.
 */
import { createInterface } from 'node:readline/promises';
import pc from 'picocolors';
import type { Keel } from '../app/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { decodeEntry } from '../core/ledger/index.ts';
import { toolSteps } from '../core/spec/index.ts';
import type { VersionRecord } from '../ports/index.ts';

export interface LiveStep {
  readonly step: string;
  readonly tool: string;
  readonly effect: string;
  readonly destructive: boolean;
}

export interface LivePlan {
  readonly workflowId: string;
  readonly version: number;
  readonly status: string;
  /** The steps still to walk, in order, with what their tools do. */
  readonly steps: readonly LiveStep[];
}

/** The steps a new run of `runId`'s workflow (on `version`, inheriting entries before `fromSeq`) may call. */
export async function livePlan(
  keel: Keel,
  tenant: string,
  runId: string,
  o: { fromSeq?: number; version?: number } = {},
): Promise<LivePlan | undefined> {
  const run = await keel.runs.get(tenant, runId);
  const version = await keel.workflows.get(tenant, run.workflowId, o.version ?? run.version);
  // A missing version is the fork's own refusal to make, with its own message.
  if (!version) return undefined;
  const inherited = o.fromSeq ? await keel.store.ledger.readEntries(tenant, runId, 0, o.fromSeq) : [];
  const done = new Set<string>();
  for (const e of inherited.map(decodeEntry))
    if (e.kind === 'step.completed') done.add((e.payload as { step: string }).step);
  return versionPlan(keel, version, done);
}

/** The steps of `version` a new run may call (those not `done` already), with what their tools do. */
export function versionPlan(
  keel: Keel,
  version: VersionRecord,
  done: ReadonlySet<string> = new Set(),
): LivePlan {
  const steps = toolSteps(version.spec)
    .filter((s) => !done.has(s.name))
    .map((s) => {
      const t = keel.tools.get(s.tool);
      return {
        step: s.name,
        tool: s.tool,
        effect: t?.effect ?? 'unknown',
        destructive: t?.destructive ?? true,
      };
    });
  return { workflowId: version.workflowId, version: version.version, status: version.status, steps };
}

const acts = (s: LiveStep) => s.effect !== 'read' || s.destructive;

function describe(s: LiveStep): string {
  return `${s.tool} (${s.effect}${s.destructive ? ', destructive' : ''})`;
}

/**
 * Shows what `what` will call for real and asks for a yes, unless `yes` or nothing acts. Throws a
 * usage error when there is no terminal to ask on, or when the person does not say yes.
 */
export async function confirmLiveEffects(
  plan: LivePlan | undefined,
  what: string,
  yes: boolean,
): Promise<void> {
  if (yes || plan === undefined) return;
  const acting = plan.steps.filter(acts);
  if (acting.length === 0) return;
  if (!process.stdin.isTTY) {
    throw new KeelError(
      ErrorCode.usage,
      `${what} calls tools for real: ${acting.map(describe).join(', ')}; there is no terminal to confirm on: pass --yes`,
      { field: 'yes', steps: [...plan.steps] },
    );
  }
  const gate =
    plan.status === 'AUTONOMOUS'
      ? 'the version is AUTONOMOUS: destructive steps run without approval'
      : `the version is ${plan.status}: destructive steps wait for a person's approval`;
  const err = (s: string) => process.stderr.write(`${s}\n`);
  err(`${what} walks ${plan.workflowId} v${plan.version} and calls its tools for real (${gate}):`);
  const stepWidth = Math.max(...plan.steps.map((s) => s.step.length));
  const toolWidth = Math.max(...plan.steps.map((s) => s.tool.length));
  for (const s of plan.steps)
    err(
      `  ${s.step.padEnd(stepWidth)}  ${s.tool.padEnd(toolWidth)}  ${s.effect}${s.destructive ? `  ${pc.red('DESTRUCTIVE')}` : ''}`,
    );
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question('Go ahead? [y/N] ');
    if (!/^y(es)?$/i.test(answer.trim()))
      throw new KeelError(ErrorCode.usage, `${what}: not confirmed, nothing was started`, { field: 'yes' });
  } finally {
    rl.close();
  }
}
