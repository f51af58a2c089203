export { isUsdAmount, MAX_USD, usdToCents } from '../money.ts';
export {
  type ApprovalClock,
  type ApprovalDeadlineSpec,
  type ApprovalDue,
  type ApprovalThen,
  checkApprovalDeadline,
  durationMs,
  GROUP_NAME,
  nextApprovalDue,
} from './approval-deadline.ts';
export { type JsonType, type ToolSchemas, templateType } from './check-tool-args.ts';
export { type ConditionRoot, evaluateCondition } from './evaluate-condition.ts';
export { EVENT_SCALAR_FIELDS, type EventLike } from './event-like.ts';
export {
  decideEventMatch,
  EVENT_MATCH_SCOPE,
  eventMatchRoot,
  parseEventMatch,
  stepsReadByMatch,
} from './event-match.ts';
export {
  allSteps,
  type ChooseBranch,
  type ChooseStepSpec,
  type FlowStep,
  type ForEachSpec,
  type ForEachStepSpec,
  findStep,
  isChooseStep,
  isLoopStep,
  isParallelStep,
  isPlainChain,
  isToolStep,
  type JoinRule,
  MAX_FLOW_DEPTH,
  type NestedList,
  nestedLists,
  type ParallelStepSpec,
  type StepsLike,
  toolSteps,
  walkSteps,
} from './flow-steps.ts';
export {
  checkForEach,
  emptyLoopOutput,
  fileIterationOutput,
  isForEachStep,
  iterationStepId,
  MAX_FOREACH_ITEMS,
  parseIterationStepId,
  RESERVED_ITEM_NAMES,
} from './foreach-step.ts';
export {
  checkValueLimits,
  excerpt,
  type InputLimits,
  JSON_LIMITS,
  type LimitBreach,
  limitError,
  measureText,
  measureValue,
  quoteInput,
  SPEC_LIMITS,
  utf8Length,
} from './input-limits.ts';
export {
  type PromotionSpec,
  type SimulationSpec,
  type SpecTest,
  type SpecTestEvent,
  TEST_EVENT_TIME,
  TEST_STATUSES,
  type TestExpectations,
  type TestStatus,
} from './lifecycle-spec.ts';
export { isModelSlot, MODEL_SLOT_KEY, type ModelSlotSpec, modelSlots } from './model-slots.ts';
export { type NormalArg, normalizeArgs, sameArgs } from './normalize-args.ts';
export { conditionKey, normalizeCondition, sameCondition } from './normalize-condition.ts';
export {
  type CompareOp,
  type Condition,
  type ConditionScope,
  type Literal,
  type Operand,
  parseCondition,
  parseConditionIn,
} from './parse-condition.ts';
export { duplicateKey, type JsonTextResult, parseJsonText } from './parse-json-text.ts';
export { parseGates, parseSpec, parseYamlWith } from './parse-spec.ts';
export { MISSING, type Missing, type PathSegment, readPath } from './read-path.ts';
export { type ResolveProblem, type ResolveResult, resolveArgs, type TemplateScope } from './resolve-args.ts';
export {
  parseTemplatePath,
  type ScannedString,
  type SourceRef,
  scanTemplates,
  type TemplatePart,
  type TemplateRef,
  unknownRootMessage,
} from './scan-templates.ts';
export {
  MISSED_POLICIES,
  type MissedPolicy,
  SCHEDULE_EVENT,
  type ScheduleSpec,
  scheduleSource,
  scheduleTakes,
} from './schedule-trigger.ts';
export { isSecretEnvName, isSecretRef, SECRET_ENV, type SecretRef } from './secret-env.ts';
export { specHash } from './spec-hash.ts';
export {
  describeValue,
  type FieldPath,
  formatFieldPath,
  formatProblem,
  type SpecProblem,
  specInvalidError,
} from './spec-problem.ts';
export {
  type ConditionReads,
  conditionFromReads,
  conditionPaths,
  decideCondition,
  parseStepCondition,
  readsOf,
  STEP_CONDITION_SCOPE,
  type StepConditionRoot,
  stepConditionRoot,
  stepsReadBy,
} from './step-condition.ts';
export { laterReaderOf } from './step-readers.ts';
export { templateRefs } from './template-refs.ts';
export { firesAt, scheduleFiringAt, type TestFire } from './test-fire.ts';
export { triggerMatches } from './trigger-matches.ts';
export { ENV_NAME, isSpecId, validateSpec } from './validate-spec.ts';
export {
  checkWait,
  type EventWaitSpec,
  isEventWait,
  isWaitStep,
  MAX_WAIT_MS,
  parseDuration,
  type WaitSpec,
  type WaitStepSpec,
} from './wait-step.ts';
export {
  isWorkflowStatus,
  type SpecOptions,
  type StepSpec,
  type TriggerSpec,
  WORKFLOW_STATUSES,
  type WorkflowLimits,
  type WorkflowSpec,
  type WorkflowStatus,
} from './workflow-spec.ts';
