export { type Delta, type DeltaProblem, deltaProblems } from './delta.ts';
export {
  type ApplyResult,
  applyDeltas,
  type DeltaFailure,
  type DeltaFailureCode,
  EMPTY_WORLD,
  foldWorld,
  type Resource,
  type World,
} from './world.ts';
