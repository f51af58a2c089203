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
          : html`<ul class="unrouted">
              ${list.value.unrouted.map(
                (e) => html`<li data-testid="unrouted">
                  <p>${e.eventId === null ? html`A delivery of <code>${v(e.source)}</code>` : html`<code>${v(e.eventId)}</code> of <code>${v(e.source)}</code>${e.type ? html` <span class="muted">${v(e.type)}</span>` : ''}`}</p>
                  <p><span class="tag">${v(e.reason)}</span> ${v(e.detail)}</p>
                  <p class="muted">Received <${Time} at=${e.receivedAt} />${e.count > 1 ? ` · ${e.count} times` : ''} · ${shortHash(e.id)}</p>
                  <details><summary>Content</summary><${Json} value=${e.content} /></details>
                  <button type="button" onClick=${redeliver(e.id)} disabled=${act.busy}>Redeliver</button>
                </li>`,
              )}
            </ul>`
    }`;
}
