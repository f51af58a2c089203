export {
  type CompiledRequest,
  type CompileOptions,
  compileRequest,
  type DraftCatalog,
  type DraftQuestion,
  type EventShape,
  eventShapesOf,
  MAX_REQUEST_LENGTH,
} from './compile-request.ts';
export { type Draft, draftSpec } from './draft-spec.ts';
export { type ExplainPolicy, eventWords, explainSpec, type ReadBack } from './explain-spec.ts';
export { DRAFT_ANSWER_SCHEMA, draftPrompt, readModelDraft } from './model-draft.ts';
