/**
 * What changed between two versions of a workflow, in plain language and as data: triggers, steps
 * (added, removed, renamed, moved, another tool, argument templates), control flow (conditions,
 * choices and branches: diff-flow.ts), limits, environment, tests,
 * gates, and how the risk of the tools it calls changes (destructive tools, effects). Each change
 * says whether it is a behaviour change: conditions compare by meaning (normalize-condition.ts),
 * templates by what they name (normalize-args.ts), and a step renamed with the same tool and
 * arguments is a rename. Shown by `keel diff` and beside every promotion gate report. Pure: two
 * specs (and what the registry says of a tool, when known) in, changes out.
 */
import { canonicalize } from '../canonical/index.ts';
import { formatUsd } from '../money.ts';
import { sameArgs, sameCondition, toolSteps, type WorkflowSpec } from '../spec/index.ts';
import type { ToolDescriptor } from '../tools/index.ts';
import { diffFlow } from './diff-flow.ts';
import { fieldDiff } from './run-decisions.ts';

export interface SpecChange {
  /** `trigger`, `step`, `flow`, `limit`, `env`, `tests`, `promotion`, `simulation`, `description`, `risk`. */
  readonly area: string;
  readonly text: string;
  /**
   * Whether runs may decide otherwise because of it: false for what only reads differently (a
   * description, a renamed step, an equivalent condition, template spacing) and for what judges
   * a version rather than runs it (tests, promotion gates, how simulated runs read tools).
   */
  readonly behaviour: boolean;
}

export interface SpecDiff {
  readonly from: number;
  readonly to: number;
  /** Nothing changed at all. */
  readonly same: boolean;
  /** No change is a behaviour change (`same`, or only renames, rewordings, tests and gates). */
  readonly sameBehaviour: boolean;
  readonly changes: readonly SpecChange[];
}

const json = (v: unknown) => JSON.stringify(v);
const eq = (a: unknown, b: unknown) => canonicalize(a ?? null) === canonicalize(b ?? null);

function risk(tool: string, describe?: (name: string) => ToolDescriptor | undefined): string {
  const d = describe?.(tool);
  if (!d) return tool;
  return `${tool} (${d.effect}${d.destructive ? ', destructive' : ''})`;
}

/**
 * Steps of `b` that are steps of `a` renamed. Where the two step lists call the same tools with
 * arguments of the same meaning, position by position (a reference to a step read through the
 * names at its position), every step is its counterpart renamed, names swapped among them too.
 * Otherwise: a step gone from `a` and a new one in `b` calling the same tool with arguments of the
 * same meaning (a reference to a step renamed earlier counts as the same reference). Old name to
 * new name; a step keeping its name is absent.
 */
function renamedSteps(specA: WorkflowSpec, specB: WorkflowSpec): Map<string, string> {
  const a = { steps: toolSteps(specA) };
  const b = { steps: toolSteps(specB) };
  if (a.steps.length === b.steps.length) {
    const at = new Map(a.steps.map((s, i) => [s.name, b.steps[i]!.name]));
    const byPosition = (n: string) => at.get(n) ?? n;
    if (
      a.steps.every((s, i) => s.tool === b.steps[i]!.tool && sameArgs(s.args, b.steps[i]!.args, byPosition))
    )
      return new Map([...at].filter(([was, now]) => was !== now));
  }
  const inB = new Set(b.steps.map((s) => s.name));
  const inA = new Set(a.steps.map((s) => s.name));
  const added = b.steps.filter((s) => !inA.has(s.name));
  const renames = new Map<string, string>();
  const newName = (n: string) => renames.get(n) ?? n;
  for (const old of a.steps) {
    if (inB.has(old.name)) continue;
    const i = added.findIndex((s) => s.tool === old.tool && sameArgs(old.args, s.args, newName));
    if (i < 0) continue;
    renames.set(old.name, added[i]!.name);
    added.splice(i, 1);
  }
  return renames;
}

export function diffSpecs(
  a: WorkflowSpec,
  b: WorkflowSpec,
  describe?: (name: string) => ToolDescriptor | undefined,
): SpecDiff {
  const changes: SpecChange[] = [];
  const add = (area: string, text: string, behaviour = true) => changes.push({ area, text, behaviour });
  if ((a.description ?? '') !== (b.description ?? ''))
    add('description', `The description now reads ${json(b.description ?? '')}.`, false);

  // Triggers: the same event with a condition of the same meaning is the same trigger.
  // A schedule trigger is named by its whole schedule: a changed cron, zone or missed policy
  // changes when runs start, so it reads as one trigger gone and another added.
  const trig = (t: WorkflowSpec['triggers'][number]) =>
    t.schedule
      ? `the schedule ${json(t.schedule.cron)} in ${t.schedule.timezone} (missed: ${t.schedule.missed})`
      : `${t.event}${t.when ? ` when ${t.when}` : ''}`;
  const sameTrigger = (x: WorkflowSpec['triggers'][number], y: WorkflowSpec['triggers'][number]) =>
    x.schedule === undefined &&
    y.schedule === undefined &&
    x.event === y.event &&
    (x.when === undefined || y.when === undefined ? x.when === y.when : sameCondition(x.when, y.when));
  const unmatched = [...a.triggers];
  const fresh: WorkflowSpec['triggers'] = [];
  for (const t of b.triggers) {
    const i = unmatched.findIndex((o) => trig(o) === trig(t));
    const j = i >= 0 ? i : unmatched.findIndex((o) => sameTrigger(o, t));
    if (j < 0) {
      fresh.push(t);
      continue;
    }
    const old = unmatched.splice(j, 1)[0]!;
    if (old.when !== t.when)
      add(
        'trigger',
        `The condition of its trigger on ${t.event} is written differently — ${json(t.when)}, was ${json(old.when)} — with the same meaning: not a behaviour change.`,
        false,
      );
  }
  // A trigger on the same event whose condition changed is one change, read as such.
  for (const t of [...fresh]) {
    if (t.schedule) continue;
    const j = unmatched.findIndex((o) => !o.schedule && o.event === t.event);
    if (j < 0) continue;
    const old = unmatched.splice(j, 1)[0]!;
    fresh.splice(fresh.indexOf(t), 1);
    const cond = (w: string | undefined) => (w === undefined ? 'on every such event' : `when ${w}`);
    add(
      'trigger',
      `The condition of its trigger on ${t.event} changes: it starts ${cond(t.when)}, where it started ${cond(old.when)}; an event that meets one and not the other starts only one of the two versions.`,
    );
  }
  for (const t of fresh) add('trigger', `Now also starts on ${trig(t)}.`);
  for (const t of unmatched) add('trigger', `No longer starts on ${trig(t)}.`);

  // Steps, by name; a step renamed with the same tool and arguments is a rename, not a new step.
  const renames = renamedSteps(a, b);
  const newName = (n: string) => renames.get(n) ?? n;
  const byName = (s: WorkflowSpec) => new Map(toolSteps(s).map((x, i) => [x.name, { ...x, i }]));
  const sa = new Map([...byName(a)].map(([name, s]) => [newName(name), { ...s, was: name }]));
  const sb = byName(b);
  for (const [was, now] of renames)
    add(
      'step',
      `Step ${was} is renamed ${now}: the same tool with the same arguments, not a behaviour change.`,
      false,
    );
  for (const [name, s] of sb) {
    const old = sa.get(name);
    if (!old) {
      add('step', `New step ${name} (step ${s.i + 1}) calls ${risk(s.tool, describe)}.`);
      continue;
    }
    if (old.tool !== s.tool)
      add('step', `Step ${name} now calls ${risk(s.tool, describe)} instead of ${risk(old.tool, describe)}.`);
    for (const f of fieldDiff(old.args, s.args)) {
      // Written otherwise with the same meaning: template spacing, a renamed step named again.
      if (f.a !== null && f.b !== null && sameArgs(f.a, f.b, newName)) {
        add(
          'step',
          `Step ${name}: argument ${f.field} is written differently — ${json(f.b)}, was ${json(f.a)} — with the same meaning: not a behaviour change.`,
          false,
        );
        continue;
      }
      add(
        'step',
        f.a === null
          ? `Step ${name}: new argument ${f.field} = ${json(f.b)}.`
          : f.b === null
            ? `Step ${name}: argument ${f.field} (was ${json(f.a)}) is gone.`
            : `Step ${name}: argument ${f.field} is ${json(f.b)} (was ${json(f.a)}).`,
      );
    }
    if (old.i !== s.i) add('step', `Step ${name} moved from position ${old.i + 1} to ${s.i + 1}.`);
  }
  for (const [name, s] of sa)
    if (!sb.has(name)) add('step', `Step ${s.was} (which called ${s.tool}) is gone.`);
  // Conditions, choices and branches (diff-flow.ts).
  for (const f of diffFlow(a, b, newName)) add('flow', f.text, f.behaviour);

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
    if (!xa.has(n)) add('tests', `New test ${json(n)}.`, false);
    else if (!eq(xa.get(n), t)) add('tests', `Test ${json(n)} changed.`, false);
  }
  for (const n of xa.keys()) if (!xb.has(n)) add('tests', `Test ${json(n)} is gone.`, false);
  if (!eq(a.promotion, b.promotion))
    add(
      'promotion',
      `Its promotion gates are now ${json(b.promotion ?? {})} (were ${json(a.promotion ?? {})}).`,
      false,
    );
  if (!eq(a.simulation, b.simulation))
    add('simulation', `Simulated runs now read tools ${b.simulation?.reads ?? 'live'}.`, false);
  if (!eq(a.inputDefaults, b.inputDefaults)) add('inputs', 'Its input defaults changed.');

  // Risk: destructive tools and effects the new version calls that the old one did not.
  if (describe) {
    const tools = (s: WorkflowSpec) => new Set(toolSteps(s).map((x) => x.tool));
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
  return {
    from: a.version,
    to: b.version,
    same: changes.length === 0,
    sameBehaviour: changes.every((c) => !c.behaviour),
    changes,
  };
}
