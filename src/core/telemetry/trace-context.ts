/**
 * W3C Trace Context (`traceparent`) and the trace and span ids Keel derives from a ledger.
 *
 * A run's spans are named by content: the trace id from the run id (or the caller's trace, when
 * the run was started with a `traceparent`), each span id from (run id, seq). Pure: the same
 * ledger always names the same spans. Never reads a clock, never draws a random id.
 */
import { digestBytes } from '../canonical/index.ts';

/** A parsed `traceparent`: version 00, the caller's trace id and span id (lower-case hex), flags. */
export interface TraceParent {
  readonly traceId: string;
  readonly spanId: string;
  readonly flags: number;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * Parses a `traceparent` header value (W3C Trace Context level 1): `00-<32 hex>-<16 hex>-<2 hex>`.
 * Returns why it is not one otherwise; the caller ignores such a value (as the recommendation
 * asks of a receiver) and the run starts a trace of its own.
 */
export function parseTraceParent(
  value: string,
): { ok: true; value: TraceParent } | { ok: false; problem: string } {
  const text = value.trim();
  if (text.length > 512) return { ok: false, problem: 'longer than 512 characters' };
  const m = TRACEPARENT.exec(text);
  if (!m)
    return { ok: false, problem: 'expected 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>, lower-case' };
  const [, version, traceId, spanId, flags, rest] = m as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  if (version === 'ff') return { ok: false, problem: 'version ff is invalid' };
  // Version 00 has exactly four fields; a later version may append more, which are ignored.
  if (version === '00' && rest !== undefined) return { ok: false, problem: 'version 00 has four fields' };
  if (/^0+$/.test(traceId)) return { ok: false, problem: 'the trace id is all zeros' };
  if (/^0+$/.test(spanId)) return { ok: false, problem: 'the span id is all zeros' };
  return { ok: true, value: { traceId, spanId, flags: Number.parseInt(flags, 16) } };
}

/** The canonical `traceparent` text of a parsed one (version 00): what a run's root records. */
export function formatTraceParent(t: TraceParent): string {
  return `00-${t.traceId}-${t.spanId}-${t.flags.toString(16).padStart(2, '0')}`;
}

function hexOf(text: string, chars: number): string {
  const hex = digestBytes(text).slice(7, 7 + chars);
  // An all-zero id is invalid in OTLP; a SHA-256 prefix is that with probability 2^-64 or less.
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}

/** The trace id of a run started without a `traceparent`: a pure function of its id. */
export function runTraceId(runId: string): string {
  return hexOf(`keel.trace\n${runId}`, 32);
}

/** The span id of the span a run's entry `seq` opens (seq 0: the run span). */
export function entrySpanId(runId: string, seq: number): string {
  return hexOf(`keel.span\n${runId}\n${seq}`, 16);
}
