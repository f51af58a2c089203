/**
 * ISO 8601 instants as Keel documents write them (`2026-03-14T10:30:00Z`, or with an offset).
 * Parsing only: a pure function of the string; nothing here reads a clock.
 */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** Milliseconds since the epoch, or undefined when `s` is not an ISO 8601 instant with a zone. */
export function parseInstant(s: string): number | undefined {
  if (!ISO_INSTANT.test(s)) return undefined;
  const ms = Date.parse(s);
  return Number.isFinite(ms) ? ms : undefined;
}
