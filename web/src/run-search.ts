/**
 * Finding a run from the runs page: what a person typed in the search box is a run id when it
 * looks like one (8 to 64 hex digits, with or without `sha256:`), else the start of a subject (a
 * ticket, a customer); a day picked to jump to is the end of that day in the browser's zone, the
 * `until` bound (the runs created before it, newest first). Pure: text in, query values out.
 */

const RUN_ID_LIKE = /^(?:sha256:)?[0-9a-f]{8,64}$/i;

/** The `/api/runs` parameters a search text asks for (nothing for an empty one). */
export function searchQuery(q: string): { runId?: string; subjectPrefix?: string } {
  const text = q.trim();
  if (!text) return {};
  return RUN_ID_LIKE.test(text) ? { runId: text } : { subjectPrefix: text };
}

/** The subject search a text also reads as, when its run id search finds nothing (`12345678`). */
export function subjectFallback(q: string): { subjectPrefix: string } | undefined {
  const text = q.trim();
  return RUN_ID_LIKE.test(text) ? { subjectPrefix: text } : undefined;
}

/** `until` for a day picked to jump to (`2026-03-14`): the start of the next day, local time, as ISO. */
export function endOfDay(day: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return undefined;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + 1);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** The day (`YYYY-MM-DD`, local) an `until` bound made by endOfDay jumped to, for the date input. */
export function dayBefore(until: string): string {
  const d = new Date(until);
  if (Number.isNaN(d.getTime())) return '';
  d.setMilliseconds(d.getMilliseconds() - 1);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}
