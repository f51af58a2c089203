export { type OtlpResource, otlpTraceJson } from './otlp-json.ts';
export {
  type ProjectedSpan,
  type ProjectOptions,
  projectSpans,
  runTraceOf,
  type SpanAttributes,
  type SpanEvent,
  type SpanLink,
  type SpanValue,
} from './project-spans.ts';
export {
  entrySpanId,
  formatTraceParent,
  parseTraceParent,
  runTraceId,
  type TraceParent,
} from './trace-context.ts';
