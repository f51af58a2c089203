/**
 * The OTLP/HTTP JSON text of any spans is valid JSON of exactly the ExportTraceServiceRequest shape
 * opentelemetry-proto's JSON mapping gives (compared, for generated spans, with a plain object
 * encoding of that mapping), whatever the strings hold: quotes, newlines, unpaired text.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { type OtlpResource, otlpTraceJson } from './otlp-json.ts';
import type { ProjectedSpan, SpanAttributes, SpanValue } from './projected-span.ts';

/** The mapping written out as objects: the reference the text must parse to. */
function reference(spans: readonly ProjectedSpan[], resource: OtlpResource) {
  const value = (v: SpanValue) =>
    typeof v === 'string'
      ? { stringValue: v }
      : typeof v === 'boolean'
        ? { boolValue: v }
        : Number.isSafeInteger(v)
          ? { intValue: String(v) }
          : { doubleValue: v };
  const attrs = (a: SpanAttributes) => Object.entries(a).map(([key, v]) => ({ key, value: value(v) }));
  const nanos = (ms: number) => String(BigInt(ms) * 1_000_000n);
  return {
    resourceSpans: [
      {
        resource: { attributes: attrs(resource.attributes) },
        scopeSpans: [
          {
            scope: resource.scope,
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId !== undefined ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name,
              kind: 1,
              startTimeUnixNano: nanos(s.startMs),
              endTimeUnixNano: nanos(s.endMs),
              attributes: attrs(s.attributes),
              events: s.events.map((e) => ({
                timeUnixNano: nanos(e.timeMs),
                name: e.name,
                attributes: attrs(e.attributes),
              })),
              links: s.links.map((l) => ({
                traceId: l.traceId,
                spanId: l.spanId,
                attributes: attrs(l.attributes),
              })),
              status: {
                code: { unset: 0, ok: 1, error: 2 }[s.status.code],
                ...(s.status.message !== undefined ? { message: s.status.message } : {}),
              },
            })),
          },
        ],
      },
    ],
  };
}

const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`));
const attributes = fc.dictionary(
  fc.string({ maxLength: 12 }),
  fc.oneof(fc.string(), fc.boolean(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
  { maxKeys: 5 },
);
const ms = fc.integer({ min: 0, max: 4_102_444_800_000 });
const span: fc.Arbitrary<ProjectedSpan> = fc.record(
  {
    traceId: hex(32),
    spanId: hex(16),
    parentSpanId: hex(16),
    name: fc.string(),
    kind: fc.constant('internal' as const),
    startMs: ms,
    endMs: ms,
    attributes,
    events: fc.array(fc.record({ name: fc.string(), timeMs: ms, attributes }), { maxLength: 3 }),
    links: fc.array(fc.record({ traceId: hex(32), spanId: hex(16), attributes }), { maxLength: 3 }),
    status: fc.oneof(
      fc.record({ code: fc.constantFrom('unset' as const, 'ok' as const) }),
      fc.record({ code: fc.constant('error' as const), message: fc.string() }),
    ),
  },
  {
    requiredKeys: [
      'traceId',
      'spanId',
      'name',
      'kind',
      'startMs',
      'endMs',
      'attributes',
      'events',
      'links',
      'status',
    ],
  },
);

test('the text parses to the proto JSON mapping of the spans, for any spans', () => {
  fc.assert(
    fc.property(fc.array(span, { maxLength: 6 }), attributes, fc.string(), (spans, attrs, version) => {
      const resource = { attributes: attrs, scope: { name: 'keel', version } };
      assert.deepEqual(JSON.parse(otlpTraceJson(spans, resource)), reference(spans, resource));
    }),
  );
});
