/**
 * OTLP/HTTP with JSON bodies: one POST of an `ExportTraceServiceRequest` to a collector's
 * `/v1/traces`. Bounded by a timeout; the answer is read only for its status. Never throws, and
 * never puts a header (they may carry a collector's token) in what it reports.
 */

export interface OtlpPostResult {
  readonly ok: boolean;
  /** Why it failed, for a log line: a status or a network error's code, never a header value. */
  readonly problem?: string;
}

export async function postOtlpJson(
  url: string,
  /** The request's JSON text. */
  body: string,
  o: { headers?: Readonly<Record<string, string>>; timeoutMs?: number } = {},
): Promise<OtlpPostResult> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...o.headers, 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(o.timeoutMs ?? 5000),
    });
    // The body is drained so the connection can be reused; its content is not trusted or echoed.
    await res.arrayBuffer().catch(() => undefined);
    return res.ok ? { ok: true } : { ok: false, problem: `the collector answered HTTP ${res.status}` };
  } catch (e) {
    const err = e as { name?: string; cause?: { code?: string } };
    const why =
      err.name === 'TimeoutError' ? 'timed out' : (err.cause?.code ?? err.name ?? 'the request failed');
    return { ok: false, problem: `could not reach the collector: ${why}` };
  }
}
