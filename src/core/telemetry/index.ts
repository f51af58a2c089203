export { type OtlpResource, otlpTraceJson } from './otlp-json.ts';
export { projectSpans } from './project-spans.ts';
export type {
  ProjectedSpan,
  ProjectOptions,
  SpanAttributes,
  SpanEvent,
  SpanLink,
  SpanValue,
} from './projected-span.ts';
export { runTraceOf } from './run-span.ts';
export {
  entrySpanId,
  formatTraceParent,
  parseTraceParent,
  runTraceId,
  type TraceParent,
} from './trace-context.ts';
