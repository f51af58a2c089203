export { type CallCost, callCost, costCents } from './tool-cost.ts';
export {
  assertToolDescriptor,
  type JsonSchema,
  TOOL_APPROVALS,
  TOOL_EFFECTS,
  type ToolApproval,
  type ToolCost,
  type ToolDescriptor,
  type ToolEffect,
} from './tool-descriptor.ts';
export { isToolPattern, patternCovers, patternMatches } from './tool-pattern.ts';
export {
  type ArgProblem,
  type ArgProblemKind,
  formatArgProblem,
  type LocatedArgProblem,
  validateArgs,
  validateValue,
  validateValueAt,
} from './validate-args.ts';
