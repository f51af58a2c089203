/**
 * Verifying a tenant's signed checkpoints (docs/audit.md, `keel audit verify`). `verifyCheckpoints`
 * checks the chain (links, hashes, signatures, the trusted key if given), each checkpoint's root
 * against the heads it recorded and its head log against the log the store holds, the witnessed
 * checkpoint (if given) against the chain, with a consistency proof from its head log to the last
 * one, and every recorded head against the ledger as the store holds it now (checkpointed-runs.ts).
 * A tenant with runs and no checkpoint fails: nothing tells it from one whose chain was deleted.
 */
import type { KeyObject } from 'node:crypto';
import {
  CHECKPOINT_FORMAT,
  type Checkpoint,
  checkpointProblem,
  digestBuffer,
  LogBuilder,
  LogTree,
  logLeaf,
  MerkleBuilder,
  toDigest,
  verifyConsistency,
  witnessedProblem,
} from '../../core/checkpoint/index.ts';
import { keyIdOf } from '../../core/writs/index.ts';
import type { Store } from '../../ports/index.ts';
import { type AuditAnomaly, type AuditReport, MAX_ANOMALIES } from './audit-report.ts';
import { ownKey, selfProblem } from './checkpoint-chain.ts';
import { checkCheckpointedRuns } from './checkpointed-runs.ts';
import { headLog, PAGE, pages } from './head-streams.ts';

/**
 * The head log as the store holds it, against what each /2 checkpoint signed of it: the problem
 * of each checkpoint whose log it does not give, and the leaves (only when `keep`, for a proof).
 */
async function checkHeadLog(store: Store, tenant: string, list: readonly Checkpoint[], keep: boolean) {
  const problems = new Map<number, string>();
  const leaves: Buffer[] = [];
  const log = new LogBuilder();
  let k = 0;
  const closeBefore = (seq: number) => {
    for (; k < list.length && list[k]!.seq < seq; k++) {
      const c = list[k]!;
      if (c.format !== CHECKPOINT_FORMAT) continue;
      const root = toDigest(log.root());
      if (log.size !== c.treeSize || root !== c.logRoot)
        problems.set(
          c.seq,
          `checkpoint ${c.seq} signed a head log of ${c.treeSize} heads with hash ${c.logRoot}; the head rows the store holds up to it (${log.size}) give ${root}: they were edited`,
        );
    }
  };
  for await (const row of headLog(store, tenant)) {
    closeBefore(row.checkpointSeq);
    const leaf = logLeaf(row);
    log.add(leaf);
    if (keep) leaves.push(leaf);
  }
  closeBefore(Number.POSITIVE_INFINITY);
  return { problems, leaves };
}

export async function verifyCheckpoints(
  store: Store,
  tenant: string,
  o: {
    trustedKey?: KeyObject;
    witnessed?: Checkpoint;
    /** A witness that was given but holds no checkpoint of the tenant (its name). */
    emptyWitness?: string;
  } = {},
): Promise<AuditReport> {
  const anomalies: AuditAnomaly[] = [];
  const note = (a: AuditAnomaly) => {
    if (anomalies.length < MAX_ANOMALIES) anomalies.push(a);
  };
  const list = await store.checkpoints.listCheckpoints(tenant);
  const trustedId = o.trustedKey ? keyIdOf(o.trustedKey) : undefined;
  const checkpoints: AuditReport['checkpoints'][number][] = [];
  let chainValid = true;
  let checkpointsValid = true;
  const w = o.witnessed;
  const headLogs = await checkHeadLog(store, tenant, list, w?.format === CHECKPOINT_FORMAT);
  for (const [i, c] of list.entries()) {
    let verified = true;
    const expectPrev = i === 0 ? null : list[i - 1]!.hash;
    if (c.seq !== i + 1 || c.prevHash !== expectPrev) {
      verified = false;
      note({
        kind: 'chain-break',
        checkpoint: c.seq,
        detail: `checkpoint ${c.seq} does not follow checkpoint ${i}`,
        expectedPrevHash: expectPrev,
        actualPrevHash: c.prevHash,
      });
    }
    const problem = selfProblem(c);
    if (problem) {
      verified = false;
      note({ kind: 'signature-invalid', checkpoint: c.seq, detail: `checkpoint ${c.seq}: ${problem}` });
    } else if (trustedId && c.keyId !== trustedId) {
      verified = false;
      note({
        kind: 'signature-invalid',
        checkpoint: c.seq,
        detail: `checkpoint ${c.seq} is signed by key ${c.keyId}, not the trusted key ${trustedId}`,
      });
    }
    if (!verified) chainValid = false;
    // The heads it recorded give the root it signed.
    const merkle = new MerkleBuilder();
    for await (const h of pages((after) =>
      store.checkpoints.checkpointedHeads(tenant, c.seq, { ...(after ? { after } : {}), limit: PAGE }),
    ))
      merkle.add(h);
    if (merkle.root() !== c.root || merkle.count !== c.runs) {
      checkpointsValid = false;
      verified = false;
      note({
        kind: 'merkle-mismatch',
        checkpoint: c.seq,
        detail: `checkpoint ${c.seq} signed ${c.runs} runs with root ${c.root}; the heads it recorded (${merkle.count}) give ${merkle.root()}: its recorded heads were edited`,
      });
    }
    const logProblem = headLogs.problems.get(c.seq);
    if (logProblem) {
      checkpointsValid = false;
      verified = false;
      note({ kind: 'merkle-mismatch', checkpoint: c.seq, detail: logProblem });
    }
    checkpoints.push({
      checkpoint: c.seq,
      at: c.at,
      runs: c.runs,
      merkleRoot: c.root,
      signature: c.signature,
      ...(c.rootSignature ? { rootSignature: c.rootSignature } : {}),
      keyId: c.keyId,
      verified,
    });
  }

  // The last checkpoint the auditor holds: the chain must hold it, and its head log extend it.
  let witness: AuditReport['witness'];
  const last = list.at(-1);
  if (w) {
    const key = o.trustedKey ?? ownKey(w);
    const problem = key ? checkpointProblem(w, key) : 'its public key is not an Ed25519 SPKI key';
    if (problem)
      note({
        kind: 'signature-invalid',
        checkpoint: w.seq,
        detail: `the witnessed checkpoint ${w.seq}: ${problem}`,
      });
    const held = list.find((c) => c.seq === w.seq);
    const gap = witnessedProblem(w, held, last?.seq ?? 0);
    if (gap) {
      chainValid = false;
      note({ kind: held ? 'chain-break' : 'checkpoint-missing', checkpoint: w.seq, detail: gap });
    }
    let consistency: NonNullable<AuditReport['witness']>['consistency'];
    if (!gap && w.format === CHECKPOINT_FORMAT && last?.format === CHECKPOINT_FORMAT) {
      const from = w.treeSize!;
      const to = last.treeSize!;
      const tree = new LogTree(headLogs.leaves);
      const proof = from <= to && to <= tree.size ? tree.consistencyProof(from, to) : [];
      const verified = verifyConsistency(
        from,
        to,
        digestBuffer(w.logRoot) ?? Buffer.alloc(0),
        digestBuffer(last.logRoot) ?? Buffer.alloc(0),
        proof,
      );
      consistency = {
        fromSize: from,
        toSize: to,
        toCheckpoint: last.seq,
        proof: proof.map(toDigest),
        verified,
      };
      if (!verified) {
        checkpointsValid = false;
        note({
          kind: 'merkle-mismatch',
          checkpoint: last.seq,
          detail: `no consistency proof from the store's head log shows checkpoint ${last.seq}'s log (${to} heads) extends the witnessed checkpoint ${w.seq}'s (${from} heads)`,
        });
      }
    }
    witness = { checkpoint: w.seq, hash: w.hash, held: !gap, ...(consistency ? { consistency } : {}) };
  }

  if (!w && o.emptyWitness !== undefined && last) {
    chainValid = false;
    note({
      kind: 'checkpoint-missing',
      checkpoint: last.seq,
      detail: `witness ${o.emptyWitness} holds no checkpoint of tenant ${tenant}, but the store holds ${list.length}: give the witness that keeps them (or let keel checkpoint write them there)`,
    });
  }
  // Every checkpointed head against the ledger as it is now, run by run.
  const { runsChecked, retained } = await checkCheckpointedRuns(store, tenant, note);

  const covered = list.at(-1)?.runs ?? 0;
  const byStatus = await store.runs.countRuns(tenant, {});
  let total = Object.values(byStatus).reduce((n, x) => n + (x ?? 0), 0);
  for await (const _ of pages((after) =>
    store.checkpoints.retainedHeads(tenant, { ...(after ? { after } : {}), limit: PAGE }),
  ))
    total++;
  // (With a witnessed checkpoint, its absence is named above.)
  if (list.length === 0 && total > 0 && !w) {
    chainValid = false;
    note({
      kind: 'checkpoint-missing',
      detail: `tenant ${tenant} has ${total} run(s) and the store holds no checkpoint of them: it was never checkpointed, or its checkpoints were deleted (a witness, --witness, tells which)`,
    });
  }
  return {
    tenant,
    ok: anomalies.length === 0,
    chainValid,
    checkpointsValid,
    checkpoints,
    runsChecked,
    retained,
    uncovered: Math.max(0, total - covered),
    ...(witness ? { witness } : {}),
    anomalies,
  };
}
