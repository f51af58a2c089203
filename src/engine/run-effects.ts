/**
 * The effects a run is walked with: live, except for a replay fork, which is always served from
 * its source's record — on creation, on recovery after a crash, and after an approval — and a
 * simulated run (a test, a shadow), whose tools that may act never do. Reads ledgers; writes nothing.
 */
import { decodeEntry } from '../core/ledger/index.ts';
import type { RunState } from '../core/run/index.ts';
import type { VersionRecord } from '../ports/index.ts';
import type { Effects } from './effects.ts';
import type { EngineContext } from './engine-context.ts';
import { indexLedger, recordedEffects } from './recorded-effects.ts';
import { simulatedEffects } from './simulated-effects.ts';

export async function effectsFor(
  ctx: EngineContext,
  tenant: string,
  s: RunState,
  version: VersionRecord,
): Promise<Effects> {
  if (s.mode !== undefined) {
    const reads = version.spec.simulation?.reads ?? 'live';
    if (!s.shadowOf) return simulatedEffects(ctx.live, reads);
    // A shadow draws what its live run drew, and is answered as it was where it calls alike
    // (simulated-effects.ts); a recovered shadow has had some of its calls answered already.
    const live = indexLedger(
      (await ctx.store.ledger.readEntries(tenant, s.shadowOf)).map(decodeEntry),
      'call',
    );
    const made =
      s.head.seq > 0
        ? indexLedger((await ctx.store.ledger.readEntries(tenant, s.runId)).map(decodeEntry), 'call').outcomes
        : undefined;
    return simulatedEffects(ctx.live, reads, {
      draws: live.draws,
      outcomes: live.outcomes,
      ...(made ? { made: new Map([...made].map(([k, v]) => [k, v.length])) } : {}),
    });
  }
  if (s.forkOf?.mode !== 'replay') return ctx.live;
  const source = (await ctx.store.ledger.readEntries(tenant, s.forkOf.runId)).map(decodeEntry);
  // Under a writ a live call would have to be charged to its shared budget, which a replay never
  // touches: there a fork calls nothing live and fails closed wherever nothing is recorded.
  return recordedEffects(indexLedger(source), ctx.live.at, s.writ ? {} : { live: ctx.live });
}
