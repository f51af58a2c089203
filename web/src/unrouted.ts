/**
 * The unrouted inbox (GET /api/events/unrouted; docs/events.md): the tenant's events no workflow
 * took and hook deliveries whose mapping failed, with the reason, and a Redeliver button that routes
 * one again through the same route the CLI uses (POST /api/events/unrouted/{id}/redeliver). Shown on
 * the Hooks page, below the hooks.
 */
import { api } from './api.ts';
import { shortHash } from './format.ts';
import { html } from './html.ts';
import { Empty, ErrorBox, Json, Time, useAction, useLoad } from './ui.ts';
import { v } from './visible.ts';

interface Unrouted {
  id: string;
  source: string;
  eventId: string | null;
  type: string | null;
  reason: string;
  detail: string;
  content: unknown;
  receivedAt: string;
  count: number;
}

interface Redelivered {
  state: 'redelivered' | 'unrouted';
  runs: { runId: string }[];
  unrouted?: { reason: string; detail: string };
}

export function UnroutedSection() {
  const list = useLoad(() => api<{ unrouted: Unrouted[] }>('GET', '/api/events/unrouted'), []);
  const act = useAction();
  const redeliver = (id: string) => async () => {
    const r = await act.run(() =>
      api<Redelivered>('POST', `/api/events/unrouted/${encodeURIComponent(id)}/redeliver`, {}),
    );
    if (r) await list.reload();
  };
  return html`
    <h2>Unrouted events</h2>
    <p class="muted">Events no workflow took, and hook deliveries whose mapping failed: kept with the reason, redeliverable once a workflow takes them.</p>
    <${ErrorBox} error=${list.error ?? act.error} />
    ${
      !list.value
        ? html`<p class="loading">Loading unrouted events…</p>`
        : list.value.unrouted.length === 0
          ? html`<${Empty}>No unrouted events: every event was taken by a workflow.<//>`
          : html`<div class="scroll"><table><thead><tr><th>Received</th><th>Event</th><th>Reason</th><th>Content</th><th></th></tr></thead><tbody>
              ${list.value.unrouted.map(
                (e) => html`<tr data-testid="unrouted">
                  <td><${Time} at=${e.receivedAt} />${e.count > 1 ? html`<br /><span class="muted">${e.count} times</span>` : ''}</td>
                  <td>${e.eventId === null ? html`a delivery of <code>${v(e.source)}</code>` : html`<code>${v(e.eventId)}</code> of <code>${v(e.source)}</code>${e.type ? html`<br /><span class="muted">${v(e.type)}</span>` : ''}`}<br /><span class="muted">${shortHash(e.id)}</span></td>
                  <td><span class="tag">${v(e.reason)}</span><br />${v(e.detail)}</td>
                  <td><details><summary>show</summary><${Json} value=${e.content} /></details></td>
                  <td><button type="button" onClick=${redeliver(e.id)} disabled=${act.busy}>Redeliver</button></td>
                </tr>`,
              )}
            </tbody></table></div>`
    }`;
}
