export {
  bodyOf,
  CHECKPOINT_FORMAT,
  type Checkpoint,
  type CheckpointBody,
  checkpointHash,
  checkpointProblem,
  rootBytes,
  signCheckpoint,
  spkiBase64,
} from './checkpoint.ts';
export { headLeaf, MerkleBuilder, merkleRoot, type RunHead } from './merkle.ts';
