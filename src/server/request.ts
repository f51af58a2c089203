/**
 * What every route does with a request body and a refusal: bound the body's size (`limitBody`),
 * read it as one canonical JSON object (`readBody`: 415 for another media type or charset, 400
 * naming the field for bytes that are not UTF-8, text that is not JSON, a key given twice, a value
 * that is not an object or has no canonical form (an unsafe integer, a lone surrogate), 413 naming
 * the limit for one nested or keyed past `JSON_LIMITS`), and turn a
 * thrown refusal into a reply, so that an idempotency key can cache it like any other answer.
 * Never echoes more of a body than a short excerpt.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { canonicalize } from '../core/canonical/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { excerpt, type InputLimits, JSON_LIMITS, parseJsonText } from '../core/spec/index.ts';
import { ProtocolError } from '../openwop/protocol-error.ts';
import { errorReply } from './errors.ts';
import type { Reply } from './idempotency.ts';

/** The body's size is bounded by `limitBody` (maxBodyBytes); the rest of JSON_LIMITS applies here. */
const BODY_LIMITS: InputLimits = { ...JSON_LIMITS, maxBytes: Number.MAX_SAFE_INTEGER };

/** `application/json`, or a `+json` suffix type (`application/merge-patch+json`), any case. */
const JSON_TYPE = /^application\/(?:json|[a-z0-9!#$&^_.+-]+\+json)$/;

/** Refuses a Content-Type that is not JSON in UTF-8 (415); none at all reads as JSON. */
function checkContentType(header: string | undefined): void {
  if (header === undefined || header.trim() === '') return;
  const [type = '', ...params] = header.split(';').map((s) => s.trim().toLowerCase());
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/^"(.*)"$/, '$1');
  const unsupported = !JSON_TYPE.test(type)
    ? `expected application/json, got ${JSON.stringify(excerpt(header, 80))}`
    : charset !== undefined && charset !== 'utf-8' && charset !== 'utf8'
      ? `JSON is read as UTF-8, got charset ${JSON.stringify(excerpt(charset, 40))}`
      : undefined;
  if (unsupported)
    throw new ProtocolError('unsupported_media_type', `Content-Type: ${unsupported}`, {
      field: 'Content-Type',
    });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The request body as a JSON object; an empty body is `{}`. A media type or charset other than
 * JSON in UTF-8 is 415, a body that is not one well-formed JSON object 400 naming the field
 * (`(body)`, or the key given twice), one past JSON_LIMITS 413 naming the limit.
 */
export async function readBody(c: Context): Promise<Record<string, unknown>> {
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    checkContentType(c.req.header('Content-Type'));
    throw new ProtocolError('validation_error', 'the request body is not valid UTF-8', { field: '(body)' });
  }
  if (text.trim() === '') return {};
  checkContentType(c.req.header('Content-Type'));
  const r = parseJsonText(text, BODY_LIMITS, 'request body');
  if (!r.ok)
    throw new ProtocolError(
      'validation_error',
      r.field === '(body)' ? `the request body is ${r.message}` : `${r.field}: ${r.message}`,
      { field: r.field },
    );
  if (typeof r.value !== 'object' || r.value === null || Array.isArray(r.value))
    throw new ProtocolError(
      'validation_error',
      `the request body must be a JSON object, got ${Array.isArray(r.value) ? 'a list' : r.value === null ? 'null' : typeof r.value}`,
      { field: '(body)' },
    );
  // Only canonical JSON is ever hashed or stored: an unsafe integer or a lone surrogate is the
  // sender's mistake, named here, not a failure of whatever would hash it later.
  try {
    canonicalize(r.value);
  } catch (e) {
    if (!(e instanceof KeelError) || e.code !== ErrorCode.canonicalInvalid) throw e;
    const field = excerpt(String(e.details.path ?? '$').replace(/^\$\.?/, ''), 100) || '(body)';
    throw new ProtocolError('validation_error', `${field}: ${excerpt(String(e.details.problem), 200)}`, {
      field,
    });
  }
  return r.value as Record<string, unknown>;
}

/** Runs `fn`, turning a refusal into its reply; an unexpected error is logged and answered 500. */
export async function attempt(fn: () => Promise<Reply>, log: (e: unknown) => void): Promise<Reply> {
  try {
    return await fn();
  } catch (e) {
    const r = errorReply(e);
    if (r.unexpected) log(e);
    return { status: r.status, body: r.body };
  }
}

/** How much of a body past the limit is still read (and dropped), and for how long, before answering. */
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;
const MAX_DRAIN_MS = 10_000;

/**
 * Bounds request bodies to `maxSize` bytes; a larger one is answered by `onError` (413). The rest
 * of an oversized body is read and dropped first (up to 64 MiB, for 10 s), so a client that sends
 * its whole body before it reads (most do) gets the 413 instead of a reset connection; past that
 * bound the connection is closed after the answer. Only `maxSize` bytes are ever held in memory.
 */
export function limitBody(o: {
  maxSize: number;
  onError: (c: Context) => Response | Promise<Response>;
}): MiddlewareHandler {
  return async (c, next) => {
    const length = c.req.header('Content-Length');
    // Over HTTP/1, a body whose length is declared within the limit is that long, and one with
    // neither header is empty (RFC 9112 §6.3): nothing to bound. The request stays the Node
    // adapter's light one, whose body is read straight from the socket (reading `raw.body` here
    // would build a whole fetch Request, with its stream and abort signal, for every request).
    const http1 = (c.env as { incoming?: { httpVersionMajor?: number } } | undefined)?.incoming;
    const framed = http1?.httpVersionMajor === 1 && c.req.header('Transfer-Encoding') === undefined;
    if (framed && (length === undefined || Number(length) <= o.maxSize)) return next();
    const body = c.req.raw.body;
    if (!body) return next();
    const declared = Number(length ?? Number.NaN);
    // A declared length past everything we would drain: answer at once and close.
    if (declared > o.maxSize + MAX_DRAIN_BYTES) return closing(await o.onError(c));
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    const deadline = Date.now() + MAX_DRAIN_MS;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size <= o.maxSize) chunks.push(value);
      else if (size > o.maxSize + MAX_DRAIN_BYTES || Date.now() > deadline) {
        await reader.cancel().catch(() => {});
        return closing(await o.onError(c));
      }
    }
    if (size > o.maxSize) return o.onError(c);
    const all = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      all.set(chunk, at);
      at += chunk.length;
    }
    c.req.raw = new Request(c.req.raw, { body: all });
    return next();
  };
}

/** The answer, with the connection closed after it (the unread rest of the body is abandoned). */
function closing(res: Response): Response {
  const out = new Response(res.body, res);
  out.headers.set('Connection', 'close');
  return out;
}
