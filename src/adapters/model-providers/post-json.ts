/**
 * One JSON POST to a model provider with fetch: a timeout, a cap on the answer's size, and errors
 * that name the provider, the URL and the status with a bounded excerpt of the body. It never puts a
 * request header (where the API key travels) into an error, and masks the key if a body echoes it.
 *
 * An outage is asked again, a bounded number of times with a doubling backoff: no connection, no
 * answer within the timeout, 408/425/429, 5xx and 529 (a model answer acts on nothing, so asking
 * again is safe). Past the last retry it is `model_unavailable`, which holds the run (walk.ts) for
 * `resume`; any other answer (a 4xx, a body that is not JSON) is `model_unavailable` at once.
 */
import { ErrorCode, KeelError } from '../../core/errors.ts';
import { secretMask } from '../../core/tools/index.ts';

export interface PostJsonOptions {
  readonly provider: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** Values never to show in an error (the API key). */
  readonly secrets: readonly string[];
  /** How many times an outage is asked again (DEFAULT_OUTAGE_RETRIES). */
  readonly retries?: number;
  /** The first backoff, doubled before each next retry up to MAX_BACKOFF_MS (DEFAULT_BACKOFF_MS). */
  readonly backoffMs?: number;
}

const EXCERPT = 300;
export const DEFAULT_OUTAGE_RETRIES = 3;
export const DEFAULT_BACKOFF_MS = 500;
/** The longest single wait between two attempts. */
export const MAX_BACKOFF_MS = 10_000;
/** Statuses of a provider that is down or busy, worth asking again. */
const RETRY_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504, 529]);

export async function postJson(o: PostJsonOptions): Promise<unknown> {
  const retries = Math.max(0, Math.floor(o.retries ?? DEFAULT_OUTAGE_RETRIES));
  const backoff = Math.max(0, o.backoffMs ?? DEFAULT_BACKOFF_MS);
  for (let attempt = 1; ; attempt++) {
    const r = await postOnce(o);
    if (r.ok) return r.value;
    if (!r.retry || attempt > retries) {
      const tries = attempt > 1 ? ` (after ${attempt} attempts)` : '';
      throw new KeelError(r.error.code, `${r.error.message}${tries}`, {
        ...r.error.details,
        attempts: attempt,
      });
    }
    await new Promise((done) => setTimeout(done, Math.min(backoff * 2 ** (attempt - 1), MAX_BACKOFF_MS)));
  }
}

type Attempt =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly retry: boolean; readonly error: KeelError };

async function postOnce(o: PostJsonOptions): Promise<Attempt> {
  // The key masked in any encoding a body may echo it in (core/tools/secret-mask.ts).
  const masker = secretMask(new Map(o.secrets.map((s, i) => [`key ${i}`, s])), () => '[api key]');
  const fail = (retry: boolean, message: string, details: Record<string, unknown> = {}): Attempt => ({
    ok: false,
    retry,
    error: new KeelError(ErrorCode.modelUnavailable, masker.text(`${o.provider} at ${o.url}: ${message}`), {
      provider: o.provider,
      url: o.url,
      ...details,
    }),
  });
  let res: Response;
  try {
    res = await fetch(o.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...o.headers },
      body: JSON.stringify(o.body),
      signal: AbortSignal.timeout(o.timeoutMs),
    });
  } catch (e) {
    const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
    return fail(
      true,
      timedOut
        ? `no answer within ${o.timeoutMs} ms`
        : `cannot be reached (${e instanceof Error ? ((e.cause as Error | undefined)?.message ?? e.message) : String(e)})`,
    );
  }
  let text: string;
  try {
    text = await readBounded(res, o.maxBytes);
  } catch (e) {
    return fail(RETRY_STATUSES.has(res.status), (e as Error).message);
  }
  if (!res.ok) {
    const excerpt = text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text;
    return fail(RETRY_STATUSES.has(res.status), `answered ${res.status}: ${excerpt}`, { status: res.status });
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return fail(false, `answered ${res.status} with a body that is not JSON`, { status: res.status });
  }
}

async function readBounded(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new Error(`answered more than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
