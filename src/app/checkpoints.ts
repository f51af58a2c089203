/**
 * Signed checkpoints of a tenant's runs (docs/audit.md), made and verified over a store.
 *
 * `makeCheckpoint` reads every run's head in creation order, streams them into a Merkle root, and
 * signs it with the operator's checkpoint key, chained to the tenant's last checkpoint. It never
 * signs over a rewrite: a run whose head no longer extends what the last checkpoint recorded (its
 * entry at that seq has another hash, it is shorter, or it is gone) stops the checkpoint, named.
 *
 * `verifyCheckpoints` checks the chain (links, hashes, signatures, the trusted key if given), each
 * checkpoint's root against the heads it recorded, and every recorded head against the ledger as
 * the store holds it now: each run's chain verifies from its root to its last checkpointed head,
 * its root derives its id, and its entry at each checkpointed seq is the one checkpointed. A run
 * rewritten even with its chain recomputed end to end fails here, named with its seq.
 *
 * A run retention removed (after a verified export) stays covered: its head as it was when removed
 * goes on into every root, and verification accepts it gone only at the head last checkpointed.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import {
  type Checkpoint,
  checkpointProblem,
  MerkleBuilder,
  signCheckpoint,
} from '../core/checkpoint/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { LedgerVerifier, type PayloadOf } from '../core/ledger/index.ts';
import { rootNamesRun } from '../core/run/index.ts';
import { keyIdOf } from '../core/writs/index.ts';
import type { CheckpointHead, CheckpointHeadRow, Store } from '../ports/index.ts';

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
    pages((after) => store.runHeads(tenant, { ...(after ? { after } : {}), limit: PAGE })),
    pages((after) => store.retainedHeads(tenant, { ...(after ? { after } : {}), limit: PAGE })),
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
  o: { readonly ifMoved?: boolean } = {},
): Promise<CheckpointMade> {
  const t0 = performance.now();
  const last = (await store.listCheckpoints(tenant)).at(-1);
  const current = allHeads(store, tenant);
  const before = last
    ? pages((after) =>
        store.checkpointedHeads(tenant, last.seq, { ...(after ? { after } : {}), limit: PAGE }),
      )
    : undefined;
  const merkle = new MerkleBuilder();
  const changed: CheckpointHead[] = [];
  const refuse = (runId: string, message: string) =>
    new KeelError(
      ErrorCode.ledgerInvalid,
      `run ${runId} ${message}: no checkpoint signs over a rewritten run`,
      {
        runId,
      },
    );
  let prev = before ? (await before.next()).value : undefined;
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
        const [at] = await store.readEntries(tenant, h.runId, prev.seq, 1);
        if (at?.hash !== prev.hash)
          throw refuse(h.runId, `has another entry at seq ${prev.seq} than checkpoint ${last!.seq} recorded`);
        changed.push(h);
      }
      prev = before ? (await before.next()).value : undefined;
    }
  }
  if (prev) throw refuse(prev.runId, `was checkpointed at seq ${prev.seq} and is no longer in the store`);
  if (o.ifMoved && last && changed.length === 0 && merkle.count === last.runs)
    return { checkpoint: last, changed: 0, ms: performance.now() - t0, skipped: true };
  const checkpoint = signCheckpoint(
    {
      tenant,
      seq: (last?.seq ?? 0) + 1,
      at: now(),
      runs: merkle.count,
      root: merkle.root(),
      prevHash: last?.hash ?? null,
    },
    key.privateKey,
    key.publicKey,
  );
  await store.appendCheckpoint(checkpoint, changed);
  return { checkpoint, changed: changed.length, ms: performance.now() - t0 };
}

export type AnomalyKind =
  | 'hash-mismatch'
  | 'chain-break'
  | 'missing-entry'
  | 'merkle-mismatch'
  | 'signature-invalid';

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
  readonly anomalies: readonly AuditAnomaly[];
}

const MAX_ANOMALIES = 100;

export async function verifyCheckpoints(
  store: Store,
  tenant: string,
  o: { trustedKey?: KeyObject } = {},
): Promise<AuditReport> {
  const anomalies: AuditAnomaly[] = [];
  const note = (a: AuditAnomaly) => {
    if (anomalies.length < MAX_ANOMALIES) anomalies.push(a);
  };
  const list = await store.listCheckpoints(tenant);
  const trustedId = o.trustedKey ? keyIdOf(o.trustedKey) : undefined;
  const checkpoints: AuditReport['checkpoints'][number][] = [];
  let chainValid = true;
  let checkpointsValid = true;
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
    let key: KeyObject | undefined;
    try {
      key = createPublicKey({ key: Buffer.from(c.publicKey, 'base64'), format: 'der', type: 'spki' });
    } catch {
      key = undefined;
    }
    const problem = key ? checkpointProblem(c, key) : 'its public key is not an Ed25519 SPKI key';
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
      store.checkpointedHeads(tenant, c.seq, { ...(after ? { after } : {}), limit: PAGE }),
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

  // Every checkpointed head against the ledger as it is now, run by run.
  let runsChecked = 0;
  let retained = 0;
  let group: CheckpointHeadRow[] = [];
  const checkRun = async (rows: readonly CheckpointHeadRow[]) => {
    runsChecked++;
    const runId = rows[0]!.runId;
    const upTo = Math.max(...rows.map((r) => r.seq));
    const stored = await store.readEntries(tenant, runId, 0, upTo + 1);
    if (stored.length === 0) {
      // Removed by retention: the checkpoint chain is what proves it, at the head it was removed at.
      const kept = await store.getRetainedRun(tenant, runId);
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
    const page = await store.checkpointHeadRows(tenant, { ...(after ? { after } : {}), limit: PAGE });
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
  const byStatus = await store.countRuns(tenant, {});
  let total = Object.values(byStatus).reduce((n, x) => n + (x ?? 0), 0);
  for await (const _ of pages((after) =>
    store.retainedHeads(tenant, { ...(after ? { after } : {}), limit: PAGE }),
  ))
    total++;
  return {
    tenant,
    ok: anomalies.length === 0,
    chainValid,
    checkpointsValid,
    checkpoints,
    runsChecked,
    retained,
    uncovered: Math.max(0, total - covered),
    anomalies,
  };
}
