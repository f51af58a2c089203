/**
 * What changed between two versions of a workflow, in plain language and as data: triggers, steps
 * (added, removed, moved, another tool, argument templates), limits, environment, tests, gates,
 * and how the risk of the tools it calls changes (destructive tools, effects). Shown by `keel
 * diff` and beside every promotion gate report. Pure: two specs (and what the registry says of a
 * tool, when known) in, changes out.
 */
import { canonicalize } from '../canonical/index.ts';
import { formatUsd } from '../money.ts';
import type { WorkflowSpec } from '../spec/index.ts';
import type { ToolDescriptor } from '../tools/index.ts';
import { fieldDiff } from './run-decisions.ts';

export interface SpecChange {
  /** `trigger`, `step`, `limit`, `env`, `tests`, `promotion`, `simulation`, `description`, `risk`. */
  readonly area: string;
  readonly text: string;
}

export interface SpecDiff {
  readonly from: number;
  readonly to: number;
  readonly same: boolean;
  readonly changes: readonly SpecChange[];
}

const json = (v: unknown) => JSON.stringify(v);
const eq = (a: unknown, b: unknown) => canonicalize(a ?? null) === canonicalize(b ?? null);

function risk(tool: string, describe?: (name: string) => ToolDescriptor | undefined): string {
  const d = describe?.(tool);
  if (!d) return tool;
  return `${tool} (${d.effect}${d.destructive ? ', destructive' : ''})`;
}

export function diffSpecs(
  a: WorkflowSpec,
  b: WorkflowSpec,
  describe?: (name: string) => ToolDescriptor | undefined,
): SpecDiff {
  const changes: SpecChange[] = [];
  const add = (area: string, text: string) => changes.push({ area, text });
  if ((a.description ?? '') !== (b.description ?? ''))
    add('description', `The description now reads ${json(b.description ?? '')}.`);

  const trig = (t: { event: string; when?: string }) => `${t.event}${t.when ? ` when ${t.when}` : ''}`;
  const ta = a.triggers.map(trig);
  const tb = b.triggers.map(trig);
  for (const t of tb) if (!ta.includes(t)) add('trigger', `Now also starts on ${t}.`);
  for (const t of ta) if (!tb.includes(t)) add('trigger', `No longer starts on ${t}.`);

  const byName = (s: WorkflowSpec) => new Map(s.steps.map((x, i) => [x.name, { ...x, i }]));
  const sa = byName(a);
  const sb = byName(b);
  for (const [name, s] of sb) {
    const old = sa.get(name);
    if (!old) {
      add('step', `New step ${name} (step ${s.i + 1}) calls ${risk(s.tool, describe)}.`);
      continue;
    }
    if (old.tool !== s.tool)
      add('step', `Step ${name} now calls ${risk(s.tool, describe)} instead of ${risk(old.tool, describe)}.`);
    for (const f of fieldDiff(old.args, s.args))
      add(
        'step',
        f.a === null
          ? `Step ${name}: new argument ${f.field} = ${json(f.b)}.`
          : f.b === null
            ? `Step ${name}: argument ${f.field} (was ${json(f.a)}) is gone.`
            : `Step ${name}: argument ${f.field} is ${json(f.b)} (was ${json(f.a)}).`,
      );
    if (old.i !== s.i) add('step', `Step ${name} moved from position ${old.i + 1} to ${s.i + 1}.`);
  }
  for (const [name, s] of sa)
    if (!sb.has(name)) add('step', `Step ${name} (which called ${s.tool}) is gone.`);

  if (a.limits.maxCostUsd !== b.limits.maxCostUsd)
    add(
      'limit',
      `The spend cap is ${b.limits.maxCostUsd > a.limits.maxCostUsd ? 'raised' : 'lowered'} from $${formatUsd(a.limits.maxCostUsd)} to $${formatUsd(b.limits.maxCostUsd)} a run.`,
    );
  if (a.limits.maxSteps !== b.limits.maxSteps)
    add('limit', `At most ${b.limits.maxSteps} steps a run (was ${a.limits.maxSteps}).`);

  const ea = a.env ?? [];
  const eb = b.env ?? [];
  for (const n of eb) if (!ea.includes(n)) add('env', `Now reads the environment variable ${n}.`);
  for (const n of ea) if (!eb.includes(n)) add('env', `No longer reads ${n}.`);

  const names = (s: WorkflowSpec) => new Map((s.tests ?? []).map((t) => [t.name, t]));
  const xa = names(a);
  const xb = names(b);
  for (const [n, t] of xb) {
    if (!xa.has(n)) add('tests', `New test ${json(n)}.`);
    else if (!eq(xa.get(n), t)) add('tests', `Test ${json(n)} changed.`);
  }
  for (const n of xa.keys()) if (!xb.has(n)) add('tests', `Test ${json(n)} is gone.`);
  if (!eq(a.promotion, b.promotion))
    add(
      'promotion',
      `Its promotion gates are now ${json(b.promotion ?? {})} (were ${json(a.promotion ?? {})}).`,
    );
  if (!eq(a.simulation, b.simulation))
    add('simulation', `Simulated runs now read tools ${b.simulation?.reads ?? 'live'}.`);
  if (!eq(a.inputDefaults, b.inputDefaults)) add('inputs', 'Its input defaults changed.');

  // Risk: destructive tools and effects the new version calls that the old one did not.
  if (describe) {
    const tools = (s: WorkflowSpec) => new Set(s.steps.map((x) => x.tool));
    const before = tools(a);
    for (const t of tools(b)) {
      const d = describe(t);
      if (before.has(t) || !d) continue;
      if (d.destructive)
        add(
          'risk',
          `It now calls a destructive tool, ${t}: it waits for a person unless the version is AUTONOMOUS.`,
        );
      else if (d.effect !== 'read') add('risk', `It now calls ${t}, which has ${d.effect} effects.`);
    }
  }
  return { from: a.version, to: b.version, same: changes.length === 0, changes };
}
