export {
  bodyOf,
  CHECKPOINT_FORMAT,
  CHECKPOINT_FORMAT_V1,
  type Checkpoint,
  type CheckpointBody,
  checkpointHash,
  checkpointProblem,
  parseCheckpointRecord,
  rootBytes,
  signCheckpoint,
  signedRecord,
  spkiBase64,
} from './checkpoint.ts';
export { headLeaf, MerkleBuilder, merkleRoot, type RunHead } from './merkle.ts';
export {
  digestBuffer,
  LogBuilder,
  LogTree,
  logLeaf,
  logRoot,
  toDigest,
  verifyConsistency,
  verifyInclusion,
} from './merkle-log.ts';
export { retentionRefusal } from './retention-refusal.ts';
export { witnessedProblem } from './witnessed.ts';
