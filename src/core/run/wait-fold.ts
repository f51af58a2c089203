/**
 * The fold of a wait step's entries into the run state: `wait.started` opens the wait (the run is
 * `waiting`, with its fire time in ms; a wait for an event with no timeout never fires), and
 * `wait.ended` closes it — the step is done, a wait for an event gets its output (the event it
 * took, in full, or that it timed out) and remembers the event so no later wait takes it again,
 * and a simulated run's virtual clock moves on to the end. Pure.
 */
import type { Entry, PayloadOf } from '../ledger/index.ts';

/** The part of the run state (run-state.ts) this fold reads and moves. */
interface WaitState {
  status: string;
  readonly mode?: string;
  virtualNow?: number;
  wait?: PayloadOf<'wait.started'> & { readonly fireAtMs: number };
  readonly outputs: Record<string, unknown>;
  readonly stepScope: Record<string, { output: unknown }>;
  readonly completed: Set<string>;
  readonly takenEvents: Set<string>;
}

export function foldWait(s: WaitState, e: Entry): void {
  if (e.kind === 'wait.started') {
    const p = e.payload as PayloadOf<'wait.started'>;
    s.wait = { ...p, fireAtMs: p.fireAt === undefined ? Number.POSITIVE_INFINITY : Date.parse(p.fireAt) };
    s.status = 'waiting';
    return;
  }
  const p = e.payload as PayloadOf<'wait.ended'>;
  if (s.wait?.kind === 'event') {
    const output = p.event ? { timedOut: false, event: p.event } : { timedOut: true };
    s.outputs[p.step] = output;
    s.stepScope[p.step] = { output };
    if (p.event) s.takenEvents.add(`${p.event.source}\n${p.event.id}`);
  }
  s.wait = undefined;
  s.completed.add(p.step);
  s.status = 'running';
  if (s.mode) s.virtualNow = Math.max(s.virtualNow ?? 0, Date.parse(p.at));
}
