/**
 * Reading what a person hands the CLI: files (or `-` for stdin), JSON documents and integer
 * options. Each failure names the file or the option and the problem, with the error code the
 * caller chooses for malformed content (an event, a writ...). A file is read only up to its
 * limit (1 MiB unless the caller says otherwise): a larger one, or an endless one (`/dev/zero`),
 * is `payload_too_large` after reading one byte past the limit, never read whole.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { type ErrorCode as Code, ErrorCode, KeelError } from '../core/errors.ts';
import { MAX_INT32 } from '../core/int-range.ts';
import { JSON_LIMITS, limitError } from '../core/spec/input-limits.ts';
import { parseJsonText } from '../core/spec/parse-json-text.ts';

export function readText(path: string, what: string, maxBytes: number = JSON_LIMITS.maxBytes): string {
  let fd: number | undefined;
  try {
    fd = path === '-' ? 0 : openSync(path, 'r');
    const buf = Buffer.allocUnsafe(maxBytes + 1);
    let n = 0;
    while (n < buf.length) {
      const got = readChunk(fd, buf, n);
      if (got === 0) break;
      n += got;
    }
    if (n > maxBytes)
      throw limitError({ limit: 'maxBytes', max: maxBytes, field: '', path: [] }, `${what} ${path}`);
    return buf.toString('utf8', 0, n);
  } catch (e) {
    if (e instanceof KeelError) throw e;
    const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
    throw new KeelError(
      ErrorCode.usage,
      `${what} ${path}: ${missing ? 'no such file' : (e as Error).message}`,
      { path },
    );
  } finally {
    if (fd !== undefined && fd !== 0) closeSync(fd);
  }
}

/** One read; a non-blocking stdin that has nothing yet is waited for, not mistaken for its end. */
function readChunk(fd: number, buf: Buffer, at: number): number {
  for (;;) {
    try {
      return readSync(fd, buf, at, buf.length - at, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/**
 * A JSON file (at most JSON_LIMITS); content that is not JSON, or gives a key twice, is refused
 * with `code` (event_invalid by default) naming the field.
 */
export function readJson(path: string, what: string, code: Code = ErrorCode.eventInvalid): unknown {
  const text = readText(path, what);
  const r = parseJsonText(text, JSON_LIMITS, `${what} ${path}`);
  if (!r.ok) {
    const at = r.field === '(body)' ? '' : `${r.field}: `;
    throw new KeelError(code, `${what} ${path}: ${at}${r.message}`, { path, field: r.field });
  }
  return r.value;
}

/**
 * An integer option from `min` (1 by default) to `max` (MAX_INT32 by default: what a store's
 * integer column holds, so `--version 2147483648` is bad input on every store), named as the
 * person typed it.
 */
export function intOption(value: string, field: string, min = 1, max = MAX_INT32): number {
  const n = /^[+-]?\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const expected = min === 1 ? `a positive integer of at most ${max}` : `an integer from ${min} to ${max}`;
    throw new KeelError(ErrorCode.usage, `${field}: expected ${expected}, got ${JSON.stringify(value)}`, {
      field,
    });
  }
  return n;
}
