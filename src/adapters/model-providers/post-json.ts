/**
 * One JSON POST to a model provider with fetch: a timeout, a cap on the answer's size, and errors
 * that name the provider, the URL and the status with a bounded excerpt of the body. It never puts a
 * request header (where the API key travels) into an error, and masks the key if a body echoes it.
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
}

const EXCERPT = 300;

export async function postJson(o: PostJsonOptions): Promise<unknown> {
  // The key masked in any encoding a body may echo it in (core/tools/secret-mask.ts).
  const masker = secretMask(new Map(o.secrets.map((s, i) => [`key ${i}`, s])), () => '[api key]');
  const mask = (text: string) => masker.text(text);
  const fail = (message: string, details: Record<string, unknown> = {}) =>
    new KeelError(ErrorCode.modelUnavailable, mask(`${o.provider} at ${o.url}: ${message}`), {
      provider: o.provider,
      url: o.url,
      ...details,
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
    throw fail(
      timedOut
        ? `no answer within ${o.timeoutMs} ms`
        : `cannot be reached (${e instanceof Error ? ((e.cause as Error | undefined)?.message ?? e.message) : String(e)})`,
    );
  }
  const text = await readBounded(res, o.maxBytes).catch((e: Error) => {
    throw fail(e.message);
  });
  if (!res.ok) {
    const excerpt = text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text;
    throw fail(`answered ${res.status}: ${excerpt}`, { status: res.status });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw fail(`answered ${res.status} with a body that is not JSON`, { status: res.status });
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
