/**
 * Virtual time in simulated runs (tests, shadows): such a run never sleeps. Its clock is folded
 * from its ledger (`RunState.virtualNow`): a test's declared `clock` stamps every entry of its run
 * (the clock stands still but for waits), and a wait's end moves the clock on to the wait's fire
 * time, so no later entry or clock read of the run is earlier than that. A live run reads the real
 * clock, always. Pure: the real reading comes in, the run's reading goes out, so a replay (served
 * the recorded times) reads alike.
 */
import type { RunState } from './run-state.ts';

/** The time a run reads when the real clock says `real` (an RFC 3339 instant from the clock). */
export function runTime(s: Pick<RunState, 'mode' | 'test' | 'virtualNow'>, real: string): string {
  const v = s.virtualNow;
  if (s.mode === undefined || v === undefined) return real;
  if (s.test?.clock !== undefined) return new Date(v).toISOString();
  return Date.parse(real) >= v ? real : new Date(v).toISOString();
}
