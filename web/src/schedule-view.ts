/**
 * A scheduled workflow's fire times on its page (GET /api/schedules, docs/events.md "Schedules"):
 * each schedule of its LIVE or AUTONOMOUS version, with the next fire after now and the last fire
 * the event index holds. Read-only; the times come from the server, which runs the scheduler.
 */
import { api } from './api.ts';
import { html } from './html.ts';
import { triggerText } from './trigger-text.ts';
import { ErrorBox, Time, useLoad } from './ui.ts';
import { v } from './visible.ts';

interface Scheduled {
  workflowId: string;
  version: number;
  schedule: { cron: string; timezone: string; missed: string };
  lastFire?: string;
  nextFire?: string;
}

export function ScheduleView({ workflowId, tick }: { workflowId: string; tick: number }) {
  const list = useLoad(() => api<{ schedules: Scheduled[] }>('GET', '/api/schedules'), [workflowId, tick]);
  const mine = (list.value?.schedules ?? []).filter((s) => s.workflowId === workflowId);
  if (list.error) return html`<${ErrorBox} error=${list.error} />`;
  if (mine.length === 0) return null;
  return html`<h2>Schedule</h2>
    <ul class="schedules" data-testid="schedules">
      ${mine.map(
        (s) =>
          html`<li>v${s.version} on ${v(triggerText({ event: 'schedule.fired', schedule: s.schedule }))}: next ${s.nextFire ? html`<${Time} at=${s.nextFire} />` : 'none within five years'}, last ${s.lastFire ? html`<${Time} at=${s.lastFire} />` : 'never fired'}</li>`,
      )}
    </ul>`;
}
