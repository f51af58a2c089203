/** How the console writes times, money, statuses and hashes. */

/** A time in the browser's zone; the UTC instant is the element's title (shown on hover). */
export function localTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

export const shortHash = (h: string) => (h.startsWith('sha256:') ? `${h.slice(7, 19)}…` : h);

export const money = (cents: number) => `$${(cents / 100).toFixed(2)}`;

/** Every run status, in lifecycle order (the API's RUN_STATUSES; a test holds the two equal). */
export const RUN_STATUSES = [
  'running',
  'waiting_approval',
  'waiting',
  'outcome_unknown',
  'paused',
  'completed',
  'refused',
  'failed',
  'cancelled',
] as const;

export const statusLabel = (s: string) => s.replace(/_/g, ' ');

/** The browser zone's instant for a `datetime-local` value, as ISO-8601 UTC, or undefined. */
export function fromLocalInput(v: string): string | undefined {
  if (!v) return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}
