/**
 * What changed in a workflow's waits between two versions, for `keel diff`: a wait added or gone,
 * its duration or instant changed, a `for` turned into an `until` or back. Each is a behaviour
 * change (a run suspends at another point, or for another time), except a wait written differently
 * with the same meaning: a duration equal in time (`60m` and `1h`), or an `until` template spaced
 * otherwise or naming a renamed step. A wait for an event: another type, match (by meaning: its
 * parsed form), timeout or lookback is a behaviour change. Pure: two specs in, changes out.
 */
import {
  type EventWaitSpec,
  isEventWait,
  isWaitStep,
  parseDuration,
  parseEventMatch,
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

/** "for 15m" / "until "{{ steps.grant.output.expiresAt }}"" / "for event customer.replied (match …, timeout 48h, lookback 1h)". */
const words = (w: WaitSpec) => {
  if ('for' in w) return `for ${w.for}`;
  if ('until' in w) return `until ${JSON.stringify(w.until)}`;
  const parts = [
    ...(w.match ? [`match ${w.match}`] : []),
    ...(w.timeout ? [`timeout ${w.timeout}`] : []),
    ...(w.lookback ? [`lookback ${w.lookback}`] : []),
  ];
  return `for event ${w.event}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`;
};

/** How two waits for events differ, each a behaviour change; [] when they mean the same. */
function eventWaitChanges(name: string, was: EventWaitSpec, now: EventWaitSpec): string[] {
  const out: string[] = [];
  if (was.event !== now.event) out.push(`The wait ${name} now waits for ${now.event} (was ${was.event}).`);
  if (normalizedMatch(was.match) !== normalizedMatch(now.match))
    out.push(
      `The wait ${name} now matches ${now.match === undefined ? 'any such event' : now.match} (was ${was.match === undefined ? 'any such event' : was.match}).`,
    );
  for (const k of ['timeout', 'lookback'] as const) {
    const a = was[k] === undefined ? undefined : ms(was[k]);
    const b = now[k] === undefined ? undefined : ms(now[k]);
    if (a !== b) out.push(`The wait ${name} now has ${k} ${now[k] ?? 'none'} (was ${was[k] ?? 'none'}).`);
  }
  return out;
}

/** A match's meaning, to compare two: its parsed form (spacing and parentheses aside). */
function normalizedMatch(m: string | undefined): string | undefined {
  if (m === undefined) return undefined;
  try {
    return JSON.stringify(parseEventMatch(m));
  } catch {
    return m;
  }
}

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
    if (isEventWait(was) && isEventWait(now)) {
      for (const t of eventWaitChanges(name, was, now)) add(t);
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
