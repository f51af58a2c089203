/**
 * Signed checkpoints of a tenant's runs (docs/audit.md), made and verified over a store.
 *
 * `makeCheckpoint` reads every run's head in creation order, streams them into a Merkle root, adds
 * the heads that moved to the head log (merkle-log.ts), and signs both with the operator's
 * checkpoint key, chained to the tenant's last checkpoint. It never signs over a rewrite: a run
 * whose head no longer extends what the last checkpoint recorded (its entry at that seq has
 * another hash, it is shorter, or it is gone) stops the checkpoint, named; so do recorded heads
 * or a head log that no longer give what the last checkpoint signed, and, given a witness, a
 * store whose chain does not hold the last checkpoint the witness keeps. Then the witness keeps it.
 *
 * `verifyCheckpoints` checks the chain (links, hashes, signatures, the trusted key if given), each
 * checkpoint's root against the heads it recorded and its head log against the log the store
 * holds, the witnessed checkpoint (if given) against the chain, with a consistency proof from its
 * head log to the last one, and every recorded head against the ledger as
 * the store holds it now: each run's chain verifies from its root to its last checkpointed head,
 * its root derives its id, and its entry at each checkpointed seq is the one checkpointed. A run
 * rewritten even with its chain recomputed end to end fails here, named with its seq.
 *
 * A run retention removed (after a verified export) stays covered: its head as it was when removed
 * goes on into every root, and verification accepts it gone only at the head last checkpointed.
 * A tenant with runs and no checkpoint fails: nothing tells it from one whose chain was deleted.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { Digest } from '../core/canonical/index.ts';
import {
  CHECKPOINT_FORMAT,
  type Checkpoint,
  checkpointProblem,
  digestBuffer,
  LogBuilder,
  LogTree,
  logLeaf,
  MerkleBuilder,
  signCheckpoint,
  signedRecord,
  toDigest,
  verifyConsistency,
  witnessedProblem,
} from '../core/checkpoint/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { LedgerVerifier, type PayloadOf } from '../core/ledger/index.ts';
import { rootNamesRun } from '../core/run/index.ts';
import type { CheckpointFile, CoveredHead } from '../core/run-dir/index.ts';
import { keyIdOf } from '../core/writs/index.ts';
import type {
  CheckpointHead,
  CheckpointHeadRow,
  CheckpointWitness,
  LogCursor,
  Store,
} from '../ports/index.ts';

const PAGE = 10_000;

/** Heads of a paged source, one by one, in creation order. */
async function* pages(read: (after: CheckpointHead | undefined) => Promise<CheckpointHead[]>) {
  let after: CheckpointHead | undefined;
  for (;;) {
    const page = await read(after);
    yield* page;
    if (page.length < PAGE) return;
    after = page[page.length - 1];
  }
}

const order = (a: CheckpointHead, b: CheckpointHead) =>
  a.createdAt < b.createdAt
    ? -1
    : a.createdAt > b.createdAt
      ? 1
      : a.runId < b.runId
        ? -1
        : a.runId > b.runId
          ? 1
          : 0;

/** Two head streams in creation order, merged into one (each run is in exactly one of them). */
async function* merged(a: AsyncGenerator<CheckpointHead>, b: AsyncGenerator<CheckpointHead>) {
  let x = await a.next();
  let y = await b.next();
  while (!x.done || !y.done) {
    if (y.done || (!x.done && order(x.value, y.value) <= 0)) {
      yield x.value;
      x = await a.next();
    } else {
      yield y.value;
      y = await b.next();
    }
  }
}

/** Every head a checkpoint covers: the runs the store holds and those retention removed. */
const allHeads = (store: Store, tenant: string) =>
  merged(
    pages((after) => store.checkpoints.runHeads(tenant, { ...(after ? { after } : {}), limit: PAGE })),
    pages((after) => store.checkpoints.retainedHeads(tenant, { ...(after ? { after } : {}), limit: PAGE })),
  );

/** The head log, row by row, in checkpoint order (checkpoint seq, then creation order). */
export async function* headLog(store: Store, tenant: string) {
  let after: LogCursor | undefined;
  for (;;) {
    const page = await store.checkpoints.checkpointLog(tenant, { ...(after ? { after } : {}), limit: PAGE });
    yield* page;
    if (page.length < PAGE) return;
    const l = page[page.length - 1]!;
    after = { checkpointSeq: l.checkpointSeq, createdAt: l.createdAt, runId: l.runId };
  }
}

/** A checkpoint's own key (the SPKI it carries), or undefined if it is not one. */
function ownKey(c: Checkpoint): KeyObject | undefined {
  try {
    return createPublicKey({ key: Buffer.from(c.publicKey, 'base64'), format: 'der', type: 'spki' });
  } catch {
    return undefined;
  }
}

/** Why a checkpoint does not hold under its own key (hash, signature, its log fields), or undefined. */
function selfProblem(c: Checkpoint): string | undefined {
  const key = ownKey(c);
  return key ? checkpointProblem(c, key) : 'its public key is not an Ed25519 SPKI key';
}

/** The stored right edge of a /2 checkpoint's head log, if it folds to the log it signed. */
function frontierOf(c: Checkpoint): LogBuilder | undefined {
  if (c.format !== CHECKPOINT_FORMAT || !c.logFrontier) return undefined;
  const edge = c.logFrontier.map(digestBuffer);
  if (edge.some((b) => b === undefined)) return undefined;
  const b = LogBuilder.from(c.treeSize!, edge as Buffer[]);
  return b && toDigest(b.root()) === c.logRoot ? b : undefined;
}

/** The error for a chain the store no longer holds as signed or witnessed: nothing is signed over it. */
const chainRefused = (tenant: string, problem: string, seq: number) =>
  new KeelError(
    ErrorCode.ledgerInvalid,
    `tenant ${tenant}: ${problem}: no checkpoint is signed over a store that does not extend its checkpoints`,
    { tenant, code: 'checkpoint_missing', seq },
  );

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

export type AnomalyKind =
  | 'hash-mismatch'
  | 'chain-break'
  | 'missing-entry'
  | 'merkle-mismatch'
  | 'signature-invalid'
  /** No checkpoint where one must be: the witness holds a later one, or a tenant with runs has none. */
  | 'checkpoint-missing';

export interface AuditAnomaly {
  readonly kind: AnomalyKind;
  readonly checkpoint?: number;
  readonly runId?: string;
  readonly seq?: number;
  readonly detail: string;
}

export interface AuditReport {
  readonly tenant: string;
  readonly ok: boolean;
  /** The checkpoint chain holds: links, hashes, signatures (and the trusted key, if given). */
  readonly chainValid: boolean;
  /** Every checkpoint's root is the root of the heads it recorded. */
  readonly checkpointsValid: boolean;
  readonly checkpoints: readonly {
    readonly checkpoint: number;
    readonly at: string;
    readonly runs: number;
    readonly merkleRoot: string;
    readonly signature: string;
    /** Over the root's 32 bytes (OpenWOP's audit surface); absent on checkpoints made before it was. */
    readonly rootSignature?: string;
    readonly keyId: string;
    readonly verified: boolean;
  }[];
  /** Runs whose checkpointed heads were checked against their ledgers. */
  readonly runsChecked: number;
  /** Of those, runs retention removed, accepted at the head last checkpointed (their export holds them). */
  readonly retained: number;
  /** Runs created after the last checkpoint: not covered yet. */
  readonly uncovered: number;
  /** The checkpoint a witness keeps (the last the auditor holds), when one was given. */
  readonly witness?: {
    readonly checkpoint: number;
    readonly hash: string;
    /** The store's chain holds it (that very checkpoint at its seq). */
    readonly held: boolean;
    /**
     * RFC 9162 consistency proof, from the store's head log, that the head log of the store's
     * last checkpoint extends the witnessed checkpoint's; `verified` against both signed hashes.
     */
    readonly consistency?: {
      readonly fromSize: number;
      readonly toSize: number;
      readonly toCheckpoint: number;
      readonly proof: readonly string[];
      readonly verified: boolean;
    };
  };
  readonly anomalies: readonly AuditAnomaly[];
}

const MAX_ANOMALIES = 100;

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
  let runsChecked = 0;
  let retained = 0;
  let group: CheckpointHeadRow[] = [];
  const checkRun = async (rows: readonly CheckpointHeadRow[]) => {
    runsChecked++;
    const runId = rows[0]!.runId;
    const upTo = Math.max(...rows.map((r) => r.seq));
    const stored = await store.ledger.readEntries(tenant, runId, 0, upTo + 1);
    if (stored.length === 0) {
      // Removed by retention: the checkpoint chain is what proves it, at the head it was removed at.
      const kept = await store.checkpoints.getRetainedRun(tenant, runId);
      const lastRow = rows.reduce((a, b) => (b.checkpointSeq > a.checkpointSeq ? b : a));
      if (kept && kept.head.seq === lastRow.seq && kept.head.hash === lastRow.hash) {
        retained++;
        return;
      }
      if (kept)
        return note({
          kind: 'hash-mismatch',
          runId,
          seq: kept.head.seq,
          checkpoint: lastRow.checkpointSeq,
          detail: `run ${runId} was removed by retention at head seq ${kept.head.seq} (${kept.head.hash}), but checkpoint ${lastRow.checkpointSeq} recorded seq ${lastRow.seq} (${lastRow.hash})`,
        });
    }
    let root: PayloadOf<'run.started'> | undefined;
    const v = new LedgerVerifier(runId, (_k, payload, seq) => {
      if (seq === 0) root = payload as PayloadOf<'run.started'>;
    });
    for (const e of stored) if (!v.push(e)) break;
    const r = v.result();
    if (stored.length === 0)
      return note({
        kind: 'missing-entry',
        runId,
        detail: `run ${runId} was checkpointed and is no longer in the store`,
      });
    if (!r.ok)
      return note({
        kind: 'hash-mismatch',
        runId,
        seq: r.failure.seq,
        detail: `run ${runId}: ${r.failure.message}`,
      });
    if (!root || !rootNamesRun(root, runId) || root.tenant !== tenant)
      return note({
        kind: 'hash-mismatch',
        runId,
        seq: 0,
        detail: `run ${runId}: its root does not derive its id`,
      });
    for (const row of rows) {
      const e = stored[row.seq];
      if (!e)
        note({
          kind: 'missing-entry',
          runId,
          seq: row.seq,
          checkpoint: row.checkpointSeq,
          detail: `run ${runId} ends before seq ${row.seq}, which checkpoint ${row.checkpointSeq} recorded`,
        });
      else if (e.hash !== row.hash)
        note({
          kind: 'hash-mismatch',
          runId,
          seq: row.seq,
          checkpoint: row.checkpointSeq,
          detail: `run ${runId} has entry ${e.hash} at seq ${row.seq}, but checkpoint ${row.checkpointSeq} recorded ${row.hash}: the run was rewritten`,
        });
    }
  };
  let after: { runId: string; checkpointSeq: number } | undefined;
  for (;;) {
    const page = await store.checkpoints.checkpointHeadRows(tenant, {
      ...(after ? { after } : {}),
      limit: PAGE,
    });
    for (const row of page) {
      if (group.length > 0 && group[0]!.runId !== row.runId) {
        await checkRun(group);
        group = [];
      }
      group.push(row);
    }
    if (page.length < PAGE) break;
    const lastRow = page[page.length - 1]!;
    after = { runId: lastRow.runId, checkpointSeq: lastRow.checkpointSeq };
  }
  if (group.length > 0) await checkRun(group);

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

/**
 * What a run directory carries of the tenant's last checkpoint (docs/run-format.md): the signed
 * checkpoint and, for each of these runs its head log records, the run's latest recorded head
 * with its inclusion proof. Undefined when the last checkpoint is a /1 (no head log) or none.
 * Reads the whole head log once; one whose hash is not what the checkpoint signed is refused.
 */
export async function checkpointCoverage(
  store: Store,
  tenant: string,
  runIds: readonly string[],
): Promise<CheckpointFile | undefined> {
  const last = (await store.checkpoints.listCheckpoints(tenant)).at(-1);
  if (last?.format !== CHECKPOINT_FORMAT) return undefined;
  const wanted = new Set(runIds);
  const leaves: Buffer[] = [];
  const at = new Map<string, { index: number; seq: number; hash: string }>();
  for await (const row of headLog(store, tenant)) {
    if (row.checkpointSeq > last.seq) break;
    if (wanted.has(row.runId)) at.set(row.runId, { index: leaves.length, seq: row.seq, hash: row.hash });
    leaves.push(logLeaf(row));
  }
  const tree = new LogTree(leaves);
  if (tree.size !== last.treeSize || toDigest(tree.hash()) !== last.logRoot)
    throw chainRefused(
      tenant,
      `the head log the store holds does not give the one checkpoint ${last.seq} signed (see keel audit verify)`,
      last.seq,
    );
  const runs: Record<string, CoveredHead> = {};
  for (const id of runIds) {
    const h = at.get(id);
    if (h)
      runs[id] = {
        seq: h.seq,
        hash: h.hash as Digest,
        leafIndex: h.index,
        proof: tree.inclusionProof(h.index).map(toDigest),
      };
  }
  return { checkpoint: signedRecord(last), runs };
}
