/**
 * Replay: re-execute a run's pinned version against its own ledger and compare, entry by entry,
 * what the walk writes with what was recorded. Every source value, tool outcome, approval and
 * timestamp is served from the record; no tool handler and no source is ever called.
 *
 * Success means every regenerated entry hashes exactly as recorded ("identical"). The first
 * difference stops the replay with a ReplayDivergence naming the seq, the regenerated and the
 * recorded entry (kind, step, tool, argument hash), and what to check.
 *
 * A replay that cannot run here — a tool the run used is not registered, the policy it is pinned
 * to or a key for its writ is not configured — is `replay_unavailable` naming what is missing,
 * never a divergence: nothing was compared, and nothing says the ledger was tampered with.
 */
import { type Digest, hashOf } from '../core/canonical/index.ts';
import { ErrorCode, isKeelError, KeelError } from '../core/errors.ts';
import { decodeEntry, type Entry, type Head, type StoredEntry } from '../core/ledger/index.ts';
import { applyEntry, startState } from '../core/run/index.ts';
import { toolSteps } from '../core/spec/index.ts';
import type { SignedWrit } from '../core/writs/index.ts';
import type { AppendRequest, Planner, VersionRecord } from '../ports/index.ts';
import { type GovernanceConfig, runGovernance } from './governance.ts';
import { indexLedger, recordedEffects } from './recorded-effects.ts';
import { type AppendSink, RunWriter } from './run-writer.ts';
import type { ToolRegistry } from './tool-registry.ts';
import { walkRun } from './walk.ts';

export interface EntrySketch {
  readonly seq: number;
  readonly kind: string;
  readonly step?: string;
  readonly tool?: string;
  readonly argsHash?: Digest;
}

export interface ReplayDivergence {
  readonly seq: number;
  /** What re-execution produced at this seq (absent when it produced nothing). */
  readonly expected?: EntrySketch;
  /** What the ledger holds at this seq (absent when the ledger ends here). */
  readonly recorded?: EntrySketch;
  readonly message: string;
  readonly hint: string;
}

export type ReplayResult =
  | { readonly identical: true; readonly runId: string; readonly entries: number }
  | {
      readonly identical: false;
      readonly runId: string;
      readonly entries: number;
      readonly divergence: ReplayDivergence;
    };

function sketch(e: Entry): EntrySketch {
  const p = e.payload as { step?: string; tool?: string; args?: Record<string, unknown> };
  return {
    seq: e.seq,
    kind: e.kind,
    ...(p.step !== undefined ? { step: p.step } : {}),
    ...(p.tool !== undefined ? { tool: p.tool } : {}),
    ...(p.args !== undefined ? { argsHash: hashOf(p.args) } : {}),
  };
}

class Diverged extends Error {
  constructor(readonly divergence: ReplayDivergence) {
    super(divergence.message);
  }
}

const HINT =
  'check what changed since the run was recorded: the tool descriptors registered now (schemas, costs, flags), the engine version, or the spec templates';

/** Compares each appended entry with the recorded one at the same seq instead of storing it. */
class ComparingSink implements AppendSink {
  constructor(private readonly recorded: readonly StoredEntry[]) {}

  async append(req: AppendRequest): Promise<Head> {
    for (const e of req.entries) {
      const want = this.recorded[e.seq];
      if (!want) {
        throw new Diverged({
          seq: e.seq,
          expected: sketch(decodeEntry(e)),
          message: `replay wrote ${e.kind} at seq ${e.seq}, past the end of the recorded ledger`,
          hint: 'the recorded run stopped earlier (a crash, or a wait); resume it before replaying',
        });
      }
      if (want.hash !== e.hash) {
        const expected = sketch(decodeEntry(e));
        const recorded = sketch(decodeEntry(want));
        throw new Diverged({
          seq: e.seq,
          expected,
          recorded,
          message: `seq ${e.seq}: replay produced ${describe(expected)} but the ledger records ${describe(recorded)}`,
          hint: HINT,
        });
      }
    }
    const last = req.entries[req.entries.length - 1]!;
    return { seq: last.seq, hash: last.hash };
  }
}

function describe(s: EntrySketch): string {
  const parts = [
    s.kind,
    s.step && `step ${s.step}`,
    s.tool && `tool ${s.tool}`,
    s.argsHash && `args ${s.argsHash.slice(0, 19)}…`,
  ];
  return parts.filter(Boolean).join(', ');
}

export async function replayRun(
  stored: readonly StoredEntry[],
  version: VersionRecord,
  tools: ToolRegistry,
  o: {
    /** The governance the run was walked under (its policy, trusted keys for its writ). */
    readonly governance?: GovernanceConfig;
    /** Reads the chain of the writ the run's root names (WritChains.chainOf), when it has one. */
    readonly writChainOf?: (tenant: string, hash: Digest) => Promise<readonly SignedWrit[]>;
    /** The planner the run was walked with; its model answers are served from the ledger. */
    readonly planner?: Planner;
  } = {},
): Promise<ReplayResult> {
  const { governance, planner } = o;
  const entries = stored.map(decodeEntry);
  const root = entries[0];
  if (root?.kind !== 'run.started')
    throw new KeelError(ErrorCode.ledgerInvalid, 'a ledger starts with run.started');
  const runId = root.runId;
  const missing = missingTools(entries, version, tools);
  if (missing.length > 0)
    throw new KeelError(
      ErrorCode.replayUnavailable,
      `replay of run ${runId} needs the tool${missing.length === 1 ? '' : 's'} ${missing.join(', ')}, not registered here; load the tool pack the run was recorded with (--tools)`,
      { runId, missing: { tools: missing } },
    );
  const at = (seq: number) => stored[seq]?.at ?? stored[stored.length - 1]!.at;
  const state = startState(root as Entry<'run.started'>);
  // A fork's entries before its fork point are its source's history, recorded by the source's walk
  // (their proposals name the source run): they are folded as they are, and the fork's own walk is
  // replayed from there. Replaying the source checks them.
  const inherited = Math.max(1, Math.min(state.forkOf?.fromSeq ?? 1, entries.length));
  for (let i = 1; i < inherited; i++) applyEntry(state, entries[i]!);
  const head = entries[inherited - 1]!;
  const writer = new RunWriter(new ComparingSink(stored), state, { seq: head.seq, hash: head.hash }, at);
  try {
    const chain = state.writ ? await o.writChainOf?.(state.tenant, state.writ.hash) : undefined;
    const gov = unavailableHere(runId, () => runGovernance(governance, state, chain));
    await walkRun(writer, version, tools, recordedEffects(indexLedger(entries), at), {
      ...(gov ? { governance: gov } : {}),
      ...(planner ? { planner } : {}),
    });
  } catch (e) {
    if (e instanceof Diverged)
      return { identical: false, runId, entries: e.divergence.seq, divergence: e.divergence };
    if (isKeelError(e) && (e.code === ErrorCode.replayDiverged || e.code === ErrorCode.replaySourceMissing)) {
      const seq = state.head.seq + 1;
      const recorded = entries[seq];
      return {
        identical: false,
        runId,
        entries: seq,
        divergence: {
          seq,
          ...(recorded ? { recorded: sketch(recorded) } : {}),
          message: `seq ${seq}: ${e.message}`,
          hint: HINT,
        },
      };
    }
    throw e;
  }
  const end = state.head.seq;
  const extra = entries[end + 1];
  if (extra) {
    return {
      identical: false,
      runId,
      entries: end + 1,
      divergence: {
        seq: end + 1,
        recorded: sketch(extra),
        message: `replay stopped at seq ${end} (${state.status}) but the ledger continues with ${describe(sketch(extra))}`,
        hint: HINT,
      },
    };
  }
  return { identical: true, runId, entries: entries.length };
}

/** The tools a run's spec and ledger name that this registry does not have (sorted). */
function missingTools(entries: readonly Entry[], version: VersionRecord, tools: ToolRegistry): string[] {
  const named = new Set(toolSteps(version.spec).map((s) => s.tool));
  for (const e of entries) {
    if (e.kind === 'step.allowed' || e.kind === 'approval.requested' || e.kind === 'step.completed')
      named.add((e.payload as { tool: string }).tool);
  }
  // A step refused as unknown_tool when it was recorded replays as the same refusal.
  for (const e of entries)
    if (e.kind === 'step.refused' && (e.payload as { code: string }).code === 'unknown_tool')
      named.delete((e.payload as { tool: string }).tool);
  return [...named].filter((t) => !tools.has(t)).sort();
}

/**
 * Governance the run needs but this process lacks (its pinned policy, a trusted key for its writ)
 * makes the replay unavailable here, not a divergence.
 */
function unavailableHere<T>(runId: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (isKeelError(e) && (e.code === ErrorCode.policyUnavailable || e.code === ErrorCode.writRefused))
      throw new KeelError(
        ErrorCode.replayUnavailable,
        `replay of run ${runId} cannot run here: ${e.message}`,
        {
          runId,
          missing:
            e.code === ErrorCode.policyUnavailable ? { policy: e.details.policy } : { trustedKeys: true },
        },
        { cause: e },
      );
    throw e;
  }
}
