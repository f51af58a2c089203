/**
 * Finding a run: by the subject of the event that started it (a ticket, a customer; exactly, or
 * every subject starting with a prefix) or by its id, whole or an unambiguous-looking prefix of at
 * least 8 hex digits (`3fa9c2d1`, `sha256:3fa9c2d1…`). Pure: the text a person typed in, checked
 * and put in the form the stores compare byte by byte; a bad one is a usage error naming its field.
 */
import { ErrorCode, KeelError } from '../errors.ts';

/** The shortest run id prefix searched for: fewer hex digits would name too many runs to be an id. */
export const RUN_ID_PREFIX_MIN = 8;
/** A subject is at most this long (an event's subject is, core/run/event.ts). */
export const SUBJECT_MAX = 512;

const HEX_PREFIX = /^(?:sha256:)?([0-9a-f]*)$/;

/**
 * `sha256:<hex>` for a run id or a prefix of one: lowercase hex digits, with or without `sha256:`,
 * at least RUN_ID_PREFIX_MIN of them and at most 64. Uppercase digits are read as lowercase.
 */
export function runIdPrefix(text: string, field = 'runId'): string {
  const m = HEX_PREFIX.exec(text.trim().toLowerCase());
  const shown = JSON.stringify(text.length > 80 ? `${text.slice(0, 79)}…` : text);
  if (!m)
    throw new KeelError(
      ErrorCode.usage,
      `${field}: expected a run id or the first ${RUN_ID_PREFIX_MIN}+ hex digits of one (sha256:3fa9c2d1…), got ${shown}`,
      { field },
    );
  const hex = m[1]!;
  if (hex.length < RUN_ID_PREFIX_MIN || hex.length > 64)
    throw new KeelError(
      ErrorCode.usage,
      `${field}: a run id prefix has ${RUN_ID_PREFIX_MIN} to 64 hex digits, got ${hex.length} (${shown})`,
      { field },
    );
  return `sha256:${hex}`;
}

/** A subject to search for, exactly as recorded: non-empty, at most SUBJECT_MAX characters. */
export function subjectTerm(text: string, field = 'subject'): string {
  if (text.length === 0 || text.length > SUBJECT_MAX)
    throw new KeelError(
      ErrorCode.usage,
      `${field}: expected 1 to ${SUBJECT_MAX} characters, got ${text.length}`,
      { field },
    );
  return text;
}

/**
 * The end of a prefix range: every text starting with `prefix` is at or after `prefix` and before
 * this, in byte order (SQLite's BINARY, PostgreSQL's COLLATE "C"), so an index answers the range.
 */
export function prefixEnd(prefix: string): string {
  return `${prefix}\u{10FFFF}`;
}
