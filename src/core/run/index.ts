export { ApprovalDeadlineCheck } from './approval-deadline-check.ts';
export { BranchCheck } from './branch-check.ts';
export { type CancelRequest, cancelReason } from './cancel-reason.ts';
export {
  type ApprovalCause,
  approvalCause,
  checkProposal,
  type Decision,
  type PolicyCheck,
  type PolicyRecord,
  type ProposalContext,
  type WritCheckContext,
} from './check-proposal.ts';
export { describeEntry } from './describe-entry.ts';
export { type EventProblem, parseEvent } from './event.ts';
export {
  CONTENT_FIELDS,
  type ContentField,
  deliveredEvent,
  differingFields,
  type EventContent,
  eventContent,
} from './event-content.ts';
export {
  type ChooseNode,
  compilePlan,
  doneIn,
  type ExecutionPlan,
  type ForEachNode,
  type Iteration,
  isReady,
  type Lane,
  laneKey,
  nextNode,
  notTaken,
  type ParallelNode,
  type PlanNode,
  readyInLanes,
  type ToolNode,
  type WaitNode,
  type Within,
} from './execution-plan.ts';
export { retainedRunError } from './retained-run.ts';
export {
  attemptRunIdFor,
  childRunIdFor,
  directRunIdFor,
  forkRunIdFor,
  idempotencyKeyFor,
  loneShadowRunIdFor,
  proposalIdFor,
  rootNamesRun,
  runIdFor,
  shadowRunIdFor,
  testRunIdFor,
} from './run-id.ts';
export {
  prefixEnd,
  RUN_ID_PREFIX_MIN,
  runIdPrefix,
  SUBJECT_MAX,
  subjectTerm,
} from './run-search.ts';
export { applyEntry, foldRun, type RunState, startState } from './run-state.ts';
export { StatusFold } from './status-fold.ts';
export { runTime } from './virtual-clock.ts';
