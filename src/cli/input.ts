/**
 * Reading what a person hands the CLI: files (or `-` for stdin), JSON documents and integer
 * options. Each failure names the file or the option and the problem, with the error code the
 * caller chooses for malformed content (an event, a writ...).
 */
import { readFileSync } from 'node:fs';
import { type ErrorCode as Code, ErrorCode, KeelError } from '../core/errors.ts';

export function readText(path: string, what: string): string {
  try {
    return path === '-' ? readFileSync(0, 'utf8') : readFileSync(path, 'utf8');
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
    throw new KeelError(
      ErrorCode.usage,
      `${what} ${path}: ${missing ? 'no such file' : (e as Error).message}`,
      { path },
    );
  }
}

/** A JSON file; content that is not JSON is refused with `code` (event_invalid by default). */
export function readJson(path: string, what: string, code: Code = ErrorCode.eventInvalid): unknown {
  const text = readText(path, what);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new KeelError(code, `${what} ${path}: not valid JSON: ${(e as Error).message}`, { path });
  }
}

/** An integer option of at least `min` (1 by default), named as the person typed it. */
export function intOption(value: string, field: string, min = 1): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min) {
    const expected = min === 1 ? 'a positive integer' : `an integer of at least ${min}`;
    throw new KeelError(ErrorCode.usage, `${field}: expected ${expected}, got ${JSON.stringify(value)}`, {
      field,
    });
  }
  return n;
}
