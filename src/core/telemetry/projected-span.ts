/**
 * The spans projected from a run's ledger (project-spans.ts), in OpenTelemetry's terms but Keel's
 * own shape: otlp-json.ts writes them as OTLP. Values only: names, codes, counts and ids.
 */

export type SpanValue = string | number | boolean;
export type SpanAttributes = Readonly<Record<string, SpanValue>>;

export interface SpanEvent {
  readonly name: string;
  /** Milliseconds since the epoch (entries' times have millisecond precision). */
  readonly timeMs: number;
  readonly attributes: SpanAttributes;
}

export interface SpanLink {
  readonly traceId: string;
  readonly spanId: string;
  readonly attributes: SpanAttributes;
}

export interface ProjectedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** The run span's caller (from `traceparent`), or the run span for a step span. */
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: 'internal';
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: SpanAttributes;
  readonly events: readonly SpanEvent[];
  readonly links: readonly SpanLink[];
  readonly status: { readonly code: 'unset' | 'ok' | 'error'; readonly message?: string };
}

export interface ProjectOptions {
  /**
   * The trace id of another run named by a link (a fork's source, a child, a live run a shadow
   * follows): its root's `traceparent` trace, when it had one. Default: derived from its run id.
   */
  readonly traceOf?: (runId: string) => string | undefined;
}
