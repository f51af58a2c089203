export { type AlignedDecisions, alignDecisions, behaviourKey } from './align-decisions.ts';
export { checkTest, type ExpectationResult, type TestVerdict } from './check-test.ts';
export { type Comparison, compareRuns, describeDecision, type StepComparison } from './compare-runs.ts';
export { startsOn, wouldNotStart, wouldStartAlone } from './compare-starts.ts';
export { diffSpecs, type SpecChange, type SpecDiff } from './diff-specs.ts';
export {
  DEFAULT_GATES,
  type EvidenceGroup,
  effectiveGates,
  type GateCondition,
  type GateConfig,
  type GateEvidence,
  type GateReport,
  groupFindings,
  judgeGate,
  type Move,
  moveOf,
} from './gates.ts';
export {
  type ChainResult,
  chainHead,
  GENESIS,
  type LifecycleKind,
  type PromotionRecord,
  promotionHash,
  verifyPromotionChain,
} from './promotion-chain.ts';
export {
  BUCKETS,
  bucketKeyOf,
  bucketOf,
  DEFAULT_STICKY_BY,
  judgeRollout,
  nextStage,
  type RolloutState,
  type RolloutVerdict,
  type SplitChoice,
  STICKY_BY_EVENT,
  type StageFigures,
  splitChoice,
  stickyByProblem,
  stickyValue,
  versionFor,
} from './rollout.ts';
export { fieldDiff, type RunDecisions, runDecisions, type StepDecision } from './run-decisions.ts';
