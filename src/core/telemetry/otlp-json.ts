/**
 * Projected spans as an OTLP/HTTP JSON `ExportTraceServiceRequest` (opentelemetry-proto, JSON
 * encoding: trace and span ids as lower-case hex, 64-bit integers and nanosecond times as decimal
 * strings, enums as numbers). Pure: the same spans give the same bytes.
 *
 * Written as text directly, not built as objects and then stringified: an export of 128 runs holds
 * hundreds of spans, and the objects alone cost as much as the runs they trace. Every string goes
 * through JSON.stringify, so the text is always valid JSON.
 */
import type { ProjectedSpan, SpanAttributes, SpanValue } from './projected-span.ts';

/** The resource the spans come from (`service.name` and the like) and the instrumentation scope. */
export interface OtlpResource {
  readonly attributes: SpanAttributes;
  readonly scope: { readonly name: string; readonly version: string };
}

const str = JSON.stringify as (s: string) => string;

function anyValue(v: SpanValue): string {
  if (typeof v === 'string') return `{"stringValue":${str(v)}}`;
  if (typeof v === 'boolean') return `{"boolValue":${v}}`;
  return Number.isSafeInteger(v) ? `{"intValue":"${v}"}` : `{"doubleValue":${JSON.stringify(v)}}`;
}

function attributes(a: SpanAttributes): string {
  let out = '';
  for (const key in a) out += `${out ? ',' : ''}{"key":${str(key)},"value":${anyValue(a[key]!)}}`;
  return `[${out}]`;
}

const nanos = (ms: number) => `"${`${ms}000000`.replace(/^0+(?=\d)/, '')}"`;
const STATUS = { unset: 0, ok: 1, error: 2 } as const;
/** SPAN_KIND_INTERNAL. */
const INTERNAL = 1;

function span(s: ProjectedSpan): string {
  let events = '';
  for (const e of s.events)
    events += `${events ? ',' : ''}{"timeUnixNano":${nanos(e.timeMs)},"name":${str(e.name)},"attributes":${attributes(e.attributes)}}`;
  let links = '';
  for (const l of s.links)
    links += `${links ? ',' : ''}{"traceId":${str(l.traceId)},"spanId":${str(l.spanId)},"attributes":${attributes(l.attributes)}}`;
  const status =
    s.status.message !== undefined
      ? `{"code":${STATUS[s.status.code]},"message":${str(s.status.message)}}`
      : `{"code":${STATUS[s.status.code]}}`;
  return (
    `{"traceId":${str(s.traceId)},"spanId":${str(s.spanId)}` +
    (s.parentSpanId !== undefined ? `,"parentSpanId":${str(s.parentSpanId)}` : '') +
    `,"name":${str(s.name)},"kind":${INTERNAL},"startTimeUnixNano":${nanos(s.startMs)},"endTimeUnixNano":${nanos(s.endMs)}` +
    `,"attributes":${attributes(s.attributes)},"events":[${events}],"links":[${links}],"status":${status}}`
  );
}

/** The request body for `spans`, as JSON text. */
export function otlpTraceJson(spans: readonly ProjectedSpan[], resource: OtlpResource): string {
  const parts: string[] = [];
  for (const s of spans) parts.push(span(s));
  return (
    `{"resourceSpans":[{"resource":{"attributes":${attributes(resource.attributes)}},` +
    `"scopeSpans":[{"scope":{"name":${str(resource.scope.name)},"version":${str(resource.scope.version)}},` +
    `"spans":[${parts.join(',')}]}]}]}`
  );
}
