/**
 * Projected spans as an OTLP/HTTP JSON `ExportTraceServiceRequest` (opentelemetry-proto, JSON
 * encoding: trace and span ids as lower-case hex, 64-bit integers and nanosecond times as decimal
 * strings, enums as numbers). Pure: the same spans give the same bytes.
 */
import type { ProjectedSpan, SpanAttributes, SpanValue } from './project-spans.ts';

/** The resource the spans come from (`service.name` and the like) and the instrumentation scope. */
export interface OtlpResource {
  readonly attributes: SpanAttributes;
  readonly scope: { readonly name: string; readonly version: string };
}

type AnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number };

function anyValue(v: SpanValue): AnyValue {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  return Number.isSafeInteger(v) ? { intValue: String(v) } : { doubleValue: v };
}

function attributes(a: SpanAttributes) {
  return Object.entries(a).map(([key, value]) => ({ key, value: anyValue(value) }));
}

const nanos = (ms: number) => `${ms}000000`.replace(/^0+(?=\d)/, '');
const STATUS = { unset: 0, ok: 1, error: 2 } as const;
/** SPAN_KIND_INTERNAL. */
const INTERNAL = 1;

export function otlpTraceRequest(spans: readonly ProjectedSpan[], resource: OtlpResource) {
  return {
    resourceSpans: [
      {
        resource: { attributes: attributes(resource.attributes) },
        scopeSpans: [
          {
            scope: { name: resource.scope.name, version: resource.scope.version },
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId !== undefined ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name,
              kind: INTERNAL,
              startTimeUnixNano: nanos(s.startMs),
              endTimeUnixNano: nanos(s.endMs),
              attributes: attributes(s.attributes),
              events: s.events.map((e) => ({
                timeUnixNano: nanos(e.timeMs),
                name: e.name,
                attributes: attributes(e.attributes),
              })),
              links: s.links.map((l) => ({
                traceId: l.traceId,
                spanId: l.spanId,
                attributes: attributes(l.attributes),
              })),
              status: {
                code: STATUS[s.status.code],
                ...(s.status.message !== undefined ? { message: s.status.message } : {}),
              },
            })),
          },
        ],
      },
    ],
  };
}
