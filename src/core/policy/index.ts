export { evaluatePolicy, type PolicyDecision, RANK, type TraceStep } from './evaluate-policy.ts';
export { buildPolicy, parsePolicy, policyFromValue } from './parse-policy.ts';
export {
  POLICY_OUTCOMES,
  type Policy,
  type PolicyInput,
  type PolicyOutcome,
  type PolicyRule,
  policyDocument,
  policyHash,
  type RuleMatch,
} from './policy.ts';
export { POLICY_CONDITION_SCOPE, policyFacts } from './policy-facts.ts';
export { type ApplicableRule, rulesForTool } from './rules-for-tool.ts';
