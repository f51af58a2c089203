/**
 * A trigger as the console's flow drawing heads it: an event trigger by its type, a schedule by its
 * cron, zone and missed-fire policy (docs/events.md, "Schedules"). Pure text, from the spec as the
 * API answers it; nothing here computes fire times.
 */

export interface TriggerView {
  event: string;
  schedule?: { cron: string; timezone: string; missed: string };
}

export function triggerText(t: TriggerView): string {
  if (!t.schedule) return t.event;
  const s = t.schedule;
  return `schedule "${s.cron}" in ${s.timezone} (missed fires: ${s.missed})`;
}

/** The flow's first line: every trigger, or a direct start when there is none. */
export function triggersText(ts: readonly TriggerView[] | undefined): string {
  return (ts ?? []).map(triggerText).join(' or ') || 'a direct start';
}
