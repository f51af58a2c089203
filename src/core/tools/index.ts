export { decimalOf, isExactMultipleOf } from './exact-multiple-of.ts';
export {
  type HeaderTemplate,
  HTTP_HEADER_NAME,
  parseHeaderTemplates,
  parseHttpTemplate,
  type RenderInput,
  renderJson,
  renderText,
  TemplateLeaf,
  type TemplateParse,
  type TemplatePart,
} from './http-template.ts';
export {
  type BodyTemplate,
  HTTP_METHODS,
  HTTP_TOOL_LIMITS,
  type HttpMethod,
  type HttpToolCost,
  type HttpToolSpec,
  parseHttpTool,
  parseHttpTools,
  type ReconcileCheck,
} from './http-tool-spec.ts';
export { createKeelAjv, keelAjv } from './keel-ajv.ts';
export {
  type HttpRequestPlan,
  type RenderedRequest,
  type RequestTemplate,
  renderHttpRequest,
} from './render-http-request.ts';
export { type SecretMask, secretMask } from './secret-mask.ts';
export {
  type CallCost,
  callCost,
  costArgProblem,
  costCents,
  resultCostCents,
  resultCostProblem,
} from './tool-cost.ts';
export {
  checkToolDescriptor,
  type DescriptorCheck,
  type JsonSchema,
  parseToolDescriptor,
  TOOL_APPROVALS,
  TOOL_EFFECTS,
  type ToolApproval,
  type ToolCost,
  type ToolDescriptor,
  type ToolEffect,
  toolContradiction,
} from './tool-descriptor.ts';
export {
  type FieldProblem,
  OVERRIDE_FIELDS,
  schemaProblem,
  TOOL_DESCRIPTOR_SCHEMA,
  TOOL_NAME_RE,
  TOOL_OVERRIDE_SCHEMA,
} from './tool-descriptor-schema.ts';
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
