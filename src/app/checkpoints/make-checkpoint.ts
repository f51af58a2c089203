/**
 * Making a tenant's signed checkpoint (docs/audit.md). `makeCheckpoint` reads every run's head in
 * creation order, streams them into a Merkle root, adds the heads that moved to the head log
 * (merkle-log.ts), and signs both with the operator's checkpoint key, chained to the tenant's last
 * checkpoint. It never signs over a rewrite: a run whose head no longer extends what the last
 * checkpoint recorded (its entry at that seq has another hash, it is shorter, or it is gone) stops
 * the checkpoint, named; so do recorded heads or a head log that no longer give what the last
 * checkpoint signed, and, given a witness, a store whose chain does not hold the last checkpoint
 * the witness keeps. Then the witness keeps it. A run retention removed stays covered: its head as
 * it was when removed goes on into every root.
 */
import type { KeyObject } from 'node:crypto';
import {
  CHECKPOINT_FORMAT,
  type Checkpoint,
  LogBuilder,
  logLeaf,
  MerkleBuilder,
  signCheckpoint,
  toDigest,
  witnessedProblem,
} from '../../core/checkpoint/index.ts';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import { keyIdOf } from '../../core/writs/index.ts';
import type { CheckpointHead, CheckpointWitness, Store } from '../../ports/index.ts';
import { chainRefused, frontierOf, selfProblem } from './checkpoint-chain.ts';
import { allHeads, headLog, order, PAGE, pages } from './head-streams.ts';

export interface CheckpointMade {
  readonly checkpoint: Checkpoint;
  /** Heads new or moved since the last checkpoint (what this one stored). */
  readonly changed: number;
  readonly ms: number;
  /** With `ifMoved`: nothing moved since the last checkpoint, which is `checkpoint`; nothing was signed. */
  readonly skipped?: true;
}

export async function makeCheckpoint(
  store: Store,
  tenant: string,
  key: { readonly privateKey: KeyObject; readonly publicKey: KeyObject },
  now: () => string = () => new Date().toISOString(),
  o: { readonly ifMoved?: boolean; readonly witness?: CheckpointWitness } = {},
): Promise<CheckpointMade> {
  const t0 = performance.now();
  const chain = await store.checkpoints.listCheckpoints(tenant);
  const last = chain.at(-1);
  await extendsWitness(tenant, chain, key.publicKey, o.witness);
  const current = allHeads(store, tenant);
  const before = last
    ? pages((after) =>
        store.checkpoints.checkpointedHeads(tenant, last.seq, { ...(after ? { after } : {}), limit: PAGE }),
      )
    : undefined;
  const merkle = new MerkleBuilder();
  // The heads the last checkpoint recorded must give the root it signed: edited ones are not compared with.
  const recorded = new MerkleBuilder();
  const nextRecorded = async () => {
    const h = before ? (await before.next()).value : undefined;
    if (h) recorded.add(h);
    return h;
  };
  const changed: CheckpointHead[] = [];
  const refuse = (runId: string, message: string) =>
    new KeelError(
      ErrorCode.ledgerInvalid,
      `run ${runId} ${message}: no checkpoint signs over a rewritten run`,
      {
        runId,
      },
    );
  let prev = await nextRecorded();
  for await (const h of current) {
    if (prev && order(prev, h) < 0) {
      throw refuse(prev.runId, `was checkpointed at seq ${prev.seq} and is no longer in the store`);
    }
    merkle.add(h);
    if (!prev || order(prev, h) > 0) changed.push(h);
    else {
      if (prev.seq !== h.seq || prev.hash !== h.hash) {
        if (h.seq < prev.seq)
          throw refuse(h.runId, `was checkpointed at seq ${prev.seq} but ends at seq ${h.seq} now`);
        const [at] = await store.ledger.readEntries(tenant, h.runId, prev.seq, 1);
        if (at?.hash !== prev.hash)
          throw refuse(h.runId, `has another entry at seq ${prev.seq} than checkpoint ${last!.seq} recorded`);
        changed.push(h);
      }
      prev = await nextRecorded();
    }
  }
  if (prev) throw refuse(prev.runId, `was checkpointed at seq ${prev.seq} and is no longer in the store`);
  if (last && (recorded.root() !== last.root || recorded.count !== last.runs))
    throw chainRefused(
      tenant,
      `the heads the store recorded for checkpoint ${last.seq} (${recorded.count}) give root ${recorded.root()}, not ${last.root} that it signed: they were edited`,
      last.seq,
    );
  if (o.ifMoved && last && changed.length === 0 && merkle.count === last.runs)
    return { checkpoint: last, changed: 0, ms: performance.now() - t0, skipped: true };
  const log = await logSoFar(store, tenant, last);
  for (const h of changed) log.add(logLeaf(h));
  const checkpoint: Checkpoint = {
    ...signCheckpoint(
      {
        tenant,
        seq: (last?.seq ?? 0) + 1,
        at: now(),
        runs: merkle.count,
        root: merkle.root(),
        prevHash: last?.hash ?? null,
        treeSize: log.size,
        logRoot: toDigest(log.root()),
      },
      key.privateKey,
      key.publicKey,
    ),
    logFrontier: log.frontier().map(toDigest),
  };
  await store.checkpoints.appendCheckpoint(checkpoint, changed);
  if (o.witness) {
    try {
      await o.witness.append(checkpoint);
    } catch (e) {
      throw new KeelError(
        ErrorCode.storeUnavailable,
        `checkpoint ${checkpoint.seq} of tenant ${tenant} was made, but witness ${o.witness.name} did not keep it (${(e as Error).message}); the next checkpoint writes it there first`,
        { tenant, seq: checkpoint.seq, field: 'witness' },
        { cause: e },
      );
    }
  }
  return { checkpoint, changed: changed.length, ms: performance.now() - t0 };
}

/**
 * Before signing, given a witness: the store's chain must hold the last checkpoint the witness
 * keeps, and every checkpoint after it must follow it, signed by its key or this one. The
 * store's checkpoints the witness lacks (one a crash kept from it) are given to it first.
 */
async function extendsWitness(
  tenant: string,
  chain: readonly Checkpoint[],
  signer: KeyObject,
  witness: CheckpointWitness | undefined,
): Promise<void> {
  const last = chain.at(-1);
  if (last) {
    const p = selfProblem(last);
    if (p) throw chainRefused(tenant, `its last checkpoint ${last.seq} does not hold (${p})`, last.seq);
  }
  if (!witness) return;
  const w = await witness.last(tenant);
  const at = w ? chain.findIndex((c) => c.seq === w.seq) : -1;
  if (w) {
    const p = selfProblem(w);
    if (p)
      throw chainRefused(tenant, `the checkpoint witness ${witness.name} keeps does not hold (${p})`, w.seq);
    const gap = witnessedProblem(w, chain[at], last?.seq ?? 0);
    if (gap) throw chainRefused(tenant, gap, w.seq);
    const keys = new Set([w.keyId, keyIdOf(signer)]);
    for (let i = at + 1; i < chain.length; i++) {
      const [p, c] = [chain[i - 1]!, chain[i]!];
      const problem =
        c.seq !== p.seq + 1 || c.prevHash !== p.hash
          ? `checkpoint ${c.seq} does not follow checkpoint ${p.seq}`
          : !keys.has(c.keyId)
            ? `checkpoint ${c.seq} is signed by key ${c.keyId}, neither the witnessed checkpoint's nor this one`
            : selfProblem(c);
      if (problem) throw chainRefused(tenant, `after the witnessed checkpoint ${w.seq}, ${problem}`, c.seq);
    }
  }
  for (const c of chain.slice(at + 1)) await witness.append(c);
}

/**
 * The head log up to the last checkpoint: from its stored right edge when that folds to the log
 * it signed, else read whole from the store (a /1 before it, or an edge lost), and then it must
 * give what the last checkpoint signed, if it signed one.
 */
async function logSoFar(store: Store, tenant: string, last: Checkpoint | undefined): Promise<LogBuilder> {
  const edge = last ? frontierOf(last) : undefined;
  if (edge) return edge;
  const log = new LogBuilder();
  for await (const row of headLog(store, tenant)) log.add(logLeaf(row));
  if (
    last?.format === CHECKPOINT_FORMAT &&
    (log.size !== last.treeSize || toDigest(log.root()) !== last.logRoot)
  )
    throw chainRefused(
      tenant,
      `the head log the store holds (${log.size} heads, ${toDigest(log.root())}) is not the one checkpoint ${last.seq} signed (${last.treeSize} heads, ${last.logRoot}): its head rows were edited`,
      last.seq,
    );
  return log;
}
