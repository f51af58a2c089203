/**
 * What changed in a workflow's waits between two versions, for `keel diff`: a wait added or gone,
 * its duration or instant changed, a `for` turned into an `until` or back. Each is a behaviour
 * change (a run suspends at another point, or for another time), except a wait written differently
 * with the same meaning: a duration equal in time (`60m` and `1h`), or an `until` template spaced
 * otherwise or naming a renamed step. Pure: two specs in, changes out.
 */
import {
  isWaitStep,
  parseDuration,
  sameArgs,
  type WaitSpec,
  type WorkflowSpec,
  walkSteps,
} from '../spec/index.ts';

/** One change, as diff-flow.ts reports it (structurally its FlowChange). */
export interface WaitChange {
  readonly text: string;
  readonly behaviour: boolean;
}

function waits(spec: WorkflowSpec): Map<string, WaitSpec> {
  const out = new Map<string, WaitSpec>();
  walkSteps(spec, (s) => {
    if (isWaitStep(s)) out.set(s.name, s.wait);
  });
  return out;
}

/** "for 15m" / "until "{{ steps.grant.output.expiresAt }}"". */
const words = (w: WaitSpec) => ('for' in w ? `for ${w.for}` : `until ${JSON.stringify(w.until)}`);

const ms = (d: string) => {
  const p = parseDuration(d);
  return 'ms' in p ? p.ms : Number.NaN;
};

/** The wait changes from `a` to `b`; `newName` maps a step renamed in `b` to its new name. */
export function diffWaits(a: WorkflowSpec, b: WorkflowSpec, newName: (n: string) => string): WaitChange[] {
  const out: WaitChange[] = [];
  const add = (text: string, behaviour = true) => out.push({ text, behaviour });
  const wa = waits(a);
  const wb = waits(b);
  for (const [name, now] of wb) {
    const was = wa.get(name);
    if (!was) {
      add(`New wait ${name}: a run suspends there ${words(now)}, calling nothing.`);
      continue;
    }
    if ('for' in was && 'for' in now) {
      if (was.for === now.for) continue;
      if (ms(was.for) === ms(now.for))
        add(
          `The wait ${name} is written differently — for ${now.for}, was for ${was.for} — the same time: not a behaviour change.`,
          false,
        );
      else add(`The wait ${name} now lasts ${now.for} (was ${was.for}).`);
      continue;
    }
    if ('until' in was && 'until' in now) {
      if (was.until === now.until) continue;
      if (sameArgs(was.until, now.until, newName))
        add(
          `The wait ${name} is written differently — until ${JSON.stringify(now.until)}, was ${JSON.stringify(was.until)} — with the same meaning: not a behaviour change.`,
          false,
        );
      else add(`The wait ${name} now lasts ${words(now)} (was ${words(was)}).`);
      continue;
    }
    add(`The wait ${name} now lasts ${words(now)} (was ${words(was)}).`);
  }
  for (const [name, was] of wa)
    if (!wb.has(name)) add(`Wait ${name} (${words(was)}) is gone: runs no longer suspend there.`);
  return out;
}
