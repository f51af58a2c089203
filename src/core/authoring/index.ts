export { compileRequest, MAX_REQUEST_LENGTH } from './compile-request.ts';
export type {
  CompiledRequest,
  CompileOptions,
  DraftCatalog,
  DraftQuestion,
  EventShape,
} from './compiled-request.ts';
export { type Draft, draftSpec } from './draft-spec.ts';
export { eventShapesOf } from './event-shapes-of.ts';
export { type ExplainPolicy, eventWords, explainSpec, type ReadBack } from './explain-spec.ts';
export { DRAFT_ANSWER_SCHEMA, draftPrompt, readModelDraft } from './model-draft.ts';
export { type TestedSpec, withTestedValues } from './tested-values.ts';
