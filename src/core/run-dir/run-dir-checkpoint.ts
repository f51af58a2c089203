/**
 * The checkpoint a run directory carries (`checkpoint.json`, docs/run-format.md): a signed
 * checkpoint and, per run, the head its head log recorded with the inclusion proof of that head.
 * A directory rewritten with every hash and the manifest recomputed still chains; it does not
 * agree with a head signed before the rewrite, and no new signature can be made without the
 * operator's key. With the checkpoint public key, every run must be covered; without it the
 * checkpoint is checked under the key it names (integrity only: anyone can sign with a key of
 * their own). Pure: files and hashes in, problems out.
 */
import type { KeyObject } from 'node:crypto';
import { createPublicKey } from 'node:crypto';
import { isDigest } from '../canonical/index.ts';
import {
  CHECKPOINT_FORMAT,
  type Checkpoint,
  checkpointProblem,
  digestBuffer,
  logLeaf,
  parseCheckpointRecord,
  verifyInclusion,
} from '../checkpoint/index.ts';
import { keyIdOf } from '../writs/index.ts';
import {
  CHECKPOINT_FILE,
  type CoveredHead,
  parseJsonFile,
  type RunDirFiles,
  runDirName,
} from './run-dir-format.ts';

export interface RunDirCheckpointProblem {
  readonly file: string;
  readonly line?: number;
  readonly code: string;
  readonly message: string;
}

/** What the directory's checkpoint says of one run. */
export interface RunCoverage {
  /** The checkpoint's seq, and the run's head it recorded (seq), proven in its head log. */
  readonly checkpoint: number;
  readonly seq: number;
  readonly verified: boolean;
}

export interface RunDirCheckpointReport {
  /** Problems of the checkpoint file as a whole. */
  readonly problems: RunDirCheckpointProblem[];
  readonly byRun: Map<string, { coverage?: RunCoverage; problems: RunDirCheckpointProblem[] }>;
  /** The checkpoint, when the file holds one that verified; `key`: under the key given. */
  readonly summary?: {
    readonly checkpoint: number;
    readonly keyId: string;
    readonly under: 'key' | 'its own key';
  };
}

const FILE = CHECKPOINT_FILE;

function coveredProblem(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'is not a JSON object';
  const r = v as Record<string, unknown>;
  const extra = Object.keys(r).find((k) => !['seq', 'hash', 'leafIndex', 'proof'].includes(k));
  if (extra !== undefined) return `has an unknown field ${JSON.stringify(extra.slice(0, 40))}`;
  if (!Number.isSafeInteger(r.seq) || (r.seq as number) < 0) return 'seq is not a whole number';
  if (!isDigest(r.hash)) return 'hash is not a sha256: digest';
  if (!Number.isSafeInteger(r.leafIndex) || (r.leafIndex as number) < 0)
    return 'leafIndex is not a whole number';
  if (!Array.isArray(r.proof) || !r.proof.every(isDigest)) return 'proof is not a list of sha256: digests';
  return undefined;
}

/**
 * `hashesOf(runId)`: the hashes of the run's ledger.jsonl entries in seq order (undefined when
 * its ledger did not parse). `key`: the checkpoint public key the auditor trusts.
 */
export function checkRunDirCheckpoint(
  files: RunDirFiles,
  tenant: string,
  runIds: readonly string[],
  hashesOf: (runId: string) => readonly string[] | undefined,
  key?: KeyObject,
): RunDirCheckpointReport {
  const byRun: RunDirCheckpointReport['byRun'] = new Map(runIds.map((id) => [id, { problems: [] }]));
  const problems: RunDirCheckpointProblem[] = [];
  const uncovered = (why: string) => {
    if (key)
      for (const id of runIds)
        byRun.get(id)!.problems.push({
          file: FILE,
          code: 'checkpoint_missing',
          message: `run ${id} is covered by no checkpoint: ${why}`,
        });
  };
  if (!files.has(FILE)) {
    uncovered('the directory carries no checkpoint.json (checkpoint, then export)');
    return { problems, byRun };
  }
  const refuse = (message: string): RunDirCheckpointReport => {
    problems.push({ file: FILE, code: 'checkpoint_invalid', message });
    uncovered('its checkpoint.json does not hold');
    return { problems, byRun };
  };
  const parsed = parseJsonFile(files, FILE);
  if (!parsed.ok) return refuse(parsed.problem.message);
  const v = parsed.value as Record<string, unknown>;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return refuse('is not a JSON object');
  const extra = Object.keys(v).find((k) => k !== 'checkpoint' && k !== 'runs');
  if (extra !== undefined) return refuse(`has an unknown field ${JSON.stringify(extra.slice(0, 40))}`);
  const record = parseCheckpointRecord(v.checkpoint);
  if (!record.ok) return refuse(`checkpoint ${record.problem}`);
  const c: Checkpoint = record.checkpoint;
  if (c.tenant !== tenant) return refuse(`holds a checkpoint of tenant ${c.tenant}, not of ${tenant}`);
  if (c.format !== CHECKPOINT_FORMAT)
    return refuse(`holds a ${c.format}, which has no head log to prove a run's head in`);
  let own: KeyObject | undefined;
  try {
    own = createPublicKey({ key: Buffer.from(c.publicKey, 'base64'), format: 'der', type: 'spki' });
  } catch {
    own = undefined;
  }
  const signer = key ?? own;
  const bad = signer ? checkpointProblem(c, signer) : 'its public key is not an Ed25519 SPKI key';
  if (bad)
    return refuse(
      key && c.keyId !== keyIdOf(key)
        ? `checkpoint ${c.seq} is signed by key ${c.keyId}, not the checkpoint key given (${keyIdOf(key)})`
        : `checkpoint ${c.seq}: ${bad}`,
    );
  const runs = v.runs;
  if (typeof runs !== 'object' || runs === null || Array.isArray(runs))
    return refuse('runs is not a mapping');
  const root = digestBuffer(c.logRoot)!;
  for (const [runId, covered] of Object.entries(runs as Record<string, unknown>)) {
    const slot = byRun.get(runId);
    if (!slot) {
      problems.push({
        file: FILE,
        code: 'checkpoint_invalid',
        message: `names run ${runId}, which is not in the manifest`,
      });
      continue;
    }
    const shape = coveredProblem(covered);
    if (shape) {
      slot.problems.push({ file: FILE, code: 'checkpoint_invalid', message: `run ${runId}: ${shape}` });
      continue;
    }
    const h = covered as CoveredHead;
    const proven = verifyInclusion(
      logLeaf({ runId, seq: h.seq, hash: h.hash }),
      h.leafIndex,
      c.treeSize!,
      h.proof.map((d) => digestBuffer(d)!),
      root,
    );
    slot.coverage = { checkpoint: c.seq, seq: h.seq, verified: proven };
    if (!proven) {
      slot.problems.push({
        file: FILE,
        code: 'checkpoint_invalid',
        message: `run ${runId}: its head at seq ${h.seq} is not in the head log checkpoint ${c.seq} signed (the inclusion proof fails)`,
      });
      continue;
    }
    const hashes = hashesOf(runId);
    if (!hashes) continue; // its ledger's own problem is named already
    const ledger = `${runDirName(runId)}/ledger.jsonl`;
    if (hashes.length <= h.seq)
      slot.problems.push({
        file: ledger,
        code: 'checkpoint_mismatch',
        message: `ends at seq ${hashes.length - 1}, but checkpoint ${c.seq} recorded the run's head at seq ${h.seq}: it was cut back after it was checkpointed`,
      });
    else if (hashes[h.seq] !== h.hash)
      slot.problems.push({
        file: ledger,
        line: h.seq + 1,
        code: 'checkpoint_mismatch',
        message: `line ${h.seq + 1}: its entry is ${hashes[h.seq]}, but checkpoint ${c.seq} recorded ${h.hash}: the run was rewritten after it was checkpointed`,
      });
  }
  if (key)
    for (const [id, slot] of byRun)
      if (!slot.coverage && slot.problems.length === 0)
        slot.problems.push({
          file: FILE,
          code: 'checkpoint_missing',
          message: `run ${id} is covered by no checkpoint: checkpoint ${c.seq} does not record it (it was created or exported after it)`,
        });
  return {
    problems,
    byRun,
    summary: { checkpoint: c.seq, keyId: c.keyId, under: key ? 'key' : 'its own key' },
  };
}
