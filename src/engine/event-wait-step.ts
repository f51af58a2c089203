/**
 * The walker of a wait for an event (`wait: { event, match, timeout, lookback }`, docs/flow.md).
 *
 * Reaching it, the walk records `wait.started` (the type, the match, the timeout's instant as
 * `fireAt`, and `since`: the earliest arrival it takes — the wait's start minus `lookback`, never
 * before the run started) and makes it durable at once, with a safety wake time, still holding the
 * run; then it tells the store the run listens for the type (ports/event-waits.ts). Only then does
 * it look at the arrivals no run took, oldest first, and decide the match on each (event.* the
 * arriving event, run.event.* the run's own): the first that holds and arrived before the timeout
 * is TAKEN (atomic in the store: two waits never take one event) and ledgered in full in
 * `wait.ended {reason: 'event', event, arrivedAt, reads}`; the walk goes on. None: at or after the
 * timeout, `wait.ended {reason: 'timeout'}`; before it, the run sleeps (`EventWaits.sleep`: lease
 * cleared, woken at the timeout or by an arrival of its type — at once if one came while it looked),
 * holding nothing. Look-after-listen and the store's sleep check are what make an arrival never lost.
 *
 * Replaying, the recorded end is served (recordedWaitEnd) and nothing asks the store. A simulated
 * run (a test) takes its test's declared arrivals (`tests[].arrives`) in virtual time; a shadow has
 * none, and times out. Nothing here calls a tool.
 */
import type { EventRecord, PayloadOf } from '../core/ledger/index.ts';
import type { WaitNode } from '../core/run/index.ts';
import { decideEventMatch, type EventWaitSpec, eventMatchRoot, parseDuration } from '../core/spec/index.ts';
import type { Arrival } from '../ports/index.ts';
import type { Flow, Walk } from './walk-context.ts';

/** How long after `wait.started` a run the walk was cut from (a crash) is walked again, at most. */
export const EVENT_WAIT_SAFETY_MS = 30_000;
/** How many untaken arrivals one look reads. */
export const ARRIVALS_PER_LOOK = 500;

const ms = (d: string | undefined) => {
  if (d === undefined) return undefined;
  const p = parseDuration(d);
  return 'ms' in p ? p.ms : undefined;
};
const iso = (t: number) => new Date(t).toISOString();

export async function walkEventWait(walk: Walk, node: WaitNode, wait: EventWaitSpec): Promise<Flow> {
  const { w, fx } = walk;
  const s = w.state;
  const name = node.step.name;
  const open = s.wait;
  const replaying = fx.recordedWaitEnd !== undefined;
  if (!open || open.step !== name) {
    const now = Date.parse(w.nextAt());
    const timeout = ms(wait.timeout);
    const lookback = ms(wait.lookback);
    const since = lookback === undefined ? s.startedAtMs : Math.max(s.startedAtMs, now - lookback);
    w.add('wait.started', {
      step: name,
      kind: 'event',
      event: wait.event,
      ...(wait.match !== undefined ? { match: wait.match } : {}),
      ...(timeout !== undefined ? { fireAt: iso(now + timeout), timeout: wait.timeout } : {}),
      ...(wait.lookback !== undefined ? { lookback: wait.lookback } : {}),
      since: iso(since),
    });
    const waits = walk.o.eventWaits;
    if (replaying || walk.simulated || !waits) return 'next';
    // Durable before the look, the run still held: a crash from here on leaves it due soon.
    w.wakeWith(Math.min(now + EVENT_WAIT_SAFETY_MS, s.wait!.fireAtMs));
    await w.commit();
    await waits.listen(s.tenant, s.runId, wait.event);
    return 'next';
  }
  if (replaying) {
    const recorded = fx.recordedWaitEnd!(s);
    if (!recorded) return 'stop';
    // A simulated run's clock jumps where it jumped when recorded (a live run's is served as recorded).
    if (walk.simulated) w.advanceTo(recorded.at);
    w.add('wait.ended', recorded);
    return 'next';
  }
  if (walk.simulated) return simulatedEnd(walk, name, wait, open);
  const waits = walk.o.eventWaits;
  const sinceMs = Date.parse(open.since ?? iso(s.startedAtMs));
  const seen: { source: string; id: string }[] = [];
  if (waits) {
    const arrivals = await waits.untaken(
      s.tenant,
      wait.event,
      sinceMs,
      { runId: s.runId, step: name },
      ARRIVALS_PER_LOOK,
    );
    for (const a of arrivals) {
      seen.push({ source: a.event.source, id: a.event.id });
      const end = matchOf(walk, wait, a, open.fireAtMs);
      if (!end) continue;
      if (!(await waits.take(s.tenant, a.event, { runId: s.runId, step: name }))) continue;
      w.add('wait.ended', { step: name, reason: 'event', at: w.nextAt(), ...end });
      return 'next';
    }
  }
  const now = w.nextAt();
  if (Date.parse(now) >= open.fireAtMs) {
    w.add('wait.ended', { step: name, reason: 'timeout', at: now });
    return 'next';
  }
  // Nothing for it: the run sleeps, holding nothing, until its timeout or an arrival of its type.
  await w.commit();
  await waits?.sleep(s.tenant, s.runId, {
    seq: s.head.seq,
    type: wait.event,
    since: sinceMs,
    seen,
    wakeAt: Number.isFinite(open.fireAtMs) ? open.fireAtMs : null,
    now: Date.parse(now),
  });
  return 'stop';
}

/** What `wait.ended` records when arrival `a` ends the wait (the event in full, when it came, what the match read); undefined when it does not. */
function matchOf(
  walk: Walk,
  wait: EventWaitSpec,
  a: Arrival,
  fireAtMs: number,
): Pick<PayloadOf<'wait.ended'>, 'event' | 'arrivedAt' | 'reads'> | undefined {
  const s = walk.w.state;
  if (a.event.tenant !== s.tenant || a.event.type !== wait.event) return undefined;
  if (a.arrivedAt > fireAtMs) return undefined;
  if (s.takenEvents.has(`${a.event.source}\n${a.event.id}`)) return undefined;
  const d = decideEventMatch(wait.match, eventMatchRoot(a.event, s.event, s.outputs));
  if (!d.value) return undefined;
  return {
    event: a.event,
    arrivedAt: iso(a.arrivedAt),
    ...(wait.match !== undefined ? { reads: d.reads } : {}),
  };
}

/** A test's declared arrival, as the run reads it: the event, when it comes (ms). */
export interface DeclaredArrival {
  readonly event: EventRecord;
  readonly arrivedAt: number;
}

/**
 * A simulated run never sleeps: of its test's declared arrivals (relative to where its clock
 * started), the first after `since` that matches and comes before the timeout ends the wait, the
 * run's clock jumping to its arrival; none, the clock jumps to the timeout. No timeout and none:
 * the run stays waiting.
 */
function simulatedEnd(
  walk: Walk,
  name: string,
  wait: EventWaitSpec,
  open: NonNullable<Walk['w']['state']['wait']>,
): Flow {
  const { w } = walk;
  const s = w.state;
  const since = Date.parse(open.since ?? iso(s.startedAtMs));
  const arrivals = (s.test?.arrives ?? [])
    .map((a) => ({ event: a.event, arrivedAt: s.startedAtMs + (ms(a.at) ?? 0) }))
    .filter((a) => a.arrivedAt >= since)
    .sort((a, b) => a.arrivedAt - b.arrivedAt);
  for (const a of arrivals) {
    const end = matchOf(walk, wait, a, open.fireAtMs);
    if (!end) continue;
    const at = w.advanceTo(iso(a.arrivedAt));
    w.add('wait.ended', { step: name, reason: 'event', at, ...end });
    return 'next';
  }
  if (!Number.isFinite(open.fireAtMs)) return 'stop';
  const at = w.advanceTo(open.fireAt!);
  w.add('wait.ended', { step: name, reason: 'timeout', at });
  return 'next';
}
