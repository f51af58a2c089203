/**
 * The replay gate's walk: a candidate version re-planned on a live run's record — its event, its
 * source values, its tools' recorded outcomes and its people's decisions served from the ledger,
 * nothing called, nothing stored — and what it would decide compared with what the run decided.
 * A divergence (another tool, other arguments, a refusal, a wait for a person) says the
 * candidate would behave differently on the traffic the live version has seen. Recorded outcomes
 * and decisions are served by call (the same tool with the same arguments), never by step name,
 * and the two runs are compared by behaviour: a version that only renames steps replays clean.
 *
 * The candidate is judged as the live version was (its status: LIVE or AUTONOMOUS), under the
 * policy given (the tenant's, which it will run under); a run's writ bounds are not re-checked
 * here (its shared budget is the live run's).
 */
import { isKeelError } from '../core/errors.ts';
import {
  chainEntry,
  decodeEntry,
  type Entry,
  type Head,
  type PayloadOf,
  type StoredEntry,
} from '../core/ledger/index.ts';
import { type Comparison, compareRuns, runDecisions } from '../core/lifecycle/index.ts';
import type { Policy } from '../core/policy/index.ts';
import { startState } from '../core/run/index.ts';
import type { AppendRequest, Planner, VersionRecord } from '../ports/index.ts';
import { indexLedger, recordedEffects } from './recorded-effects.ts';
import { RunWriter } from './run-writer.ts';
import type { ToolRegistry } from './tool-registry.ts';
import { walkRun } from './walk.ts';

/** Keeps what a walk appends, in memory, instead of storing it. */
class KeepingSink {
  readonly entries: StoredEntry[] = [];
  async append(req: AppendRequest): Promise<Head> {
    this.entries.push(...req.entries);
    const last = req.entries[req.entries.length - 1]!;
    return { seq: last.seq, hash: last.hash };
  }
}

export interface Replanned {
  readonly runId: string;
  readonly comparison: Comparison;
  /** Set when the candidate could not be walked on this record at all (why). */
  readonly stopped?: string;
}

/** Re-plans `candidate` on the recorded ledger of a finished live run and compares. */
export async function replanRun(
  recorded: readonly Entry[],
  candidate: VersionRecord,
  tools: ToolRegistry,
  o: {
    readonly policy?: Policy;
    readonly planner?: Planner;
    readonly labels: { live: string; candidate: string };
  },
): Promise<Replanned> {
  const liveRoot = recorded[0]!;
  const p = liveRoot.payload as PayloadOf<'run.started'>;
  const rootPayload: PayloadOf<'run.started'> = {
    tenant: p.tenant,
    workflowId: p.workflowId,
    version: candidate.version,
    specHash: candidate.specHash,
    // The candidate takes the live version's place, at its level of autonomy.
    status: p.status,
    event: p.event,
    engine: p.engine,
  };
  const root = chainEntry(liveRoot.runId, null, 'run.started', rootPayload, liveRoot.at);
  const state = startState(root.entry);
  const at = (seq: number) => recorded[seq]?.at ?? recorded[recorded.length - 1]!.at;
  const sink = new KeepingSink();
  const writer = new RunWriter(sink, state, { seq: 0, hash: root.entry.hash }, at);
  let stopped: string | undefined;
  try {
    await walkRun(writer, candidate, tools, recordedEffects(indexLedger(recorded, 'call'), at), {
      ...(o.policy ? { governance: { policy: o.policy } } : {}),
      ...(o.planner ? { planner: o.planner } : {}),
    });
  } catch (e) {
    // The record has nothing to serve (a draw of another kind, an outcome of a step it never ran):
    // the candidate leaves the recorded path here, which is a divergence, not an error.
    if (!isKeelError(e)) throw e;
    stopped = e.message;
  }
  const walked = [root.entry as Entry, ...sink.entries.map(decodeEntry)];
  const comparison = compareRuns(runDecisions(recorded), runDecisions(walked), {
    event: p.event,
    liveLabel: o.labels.live,
    candidateLabel: o.labels.candidate,
  });
  if (stopped && comparison.agree)
    return {
      runId: liveRoot.runId,
      stopped,
      comparison: {
        ...comparison,
        agree: false,
        sentences: [`${o.labels.candidate} leaves the recorded path: ${stopped}`],
      },
    };
  return { runId: liveRoot.runId, comparison, ...(stopped ? { stopped } : {}) };
}
