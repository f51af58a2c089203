/**
 * What every route does with a request body and a refusal: read the body as JSON (415 for another
 * media type, 400 naming `(body)` for malformed JSON), and turn a thrown refusal into a reply, so
 * that an idempotency key can cache it like any other answer.
 */
import type { Context } from 'hono';
import { ProtocolError } from '../openwop/protocol-error.ts';
import { errorReply } from './errors.ts';
import type { Reply } from './idempotency.ts';

export async function readBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  const type = c.req.header('Content-Type');
  if (type && !/^application\/([\w.+-]+\+)?json\b/i.test(type))
    throw new ProtocolError(
      'unsupported_media_type',
      `Content-Type: expected application/json, got ${type}`,
      {
        field: 'Content-Type',
      },
    );
  try {
    return JSON.parse(text);
  } catch {
    throw new ProtocolError('validation_error', 'the request body is not valid JSON', { field: '(body)' });
  }
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
