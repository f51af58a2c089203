/**
 * Hooks: the webhooks this server serves for the tenant (GET /api/hooks), read-only — each one's
 * path, how deliveries are authenticated (scheme, header, the environment variable holding the
 * secret; never the secret), its limits and how a delivery maps to an event. A hook is changed in
 * its reviewed hooks file, never here (docs/hooks.md).
 */
import { api } from './api.ts';
import { html } from './html.ts';
import { Empty, ErrorBox, Json, useLoad } from './ui.ts';
import { UnroutedSection } from './unrouted.ts';
import { v } from './visible.ts';

interface Hook {
  name: string;
  path: string;
  source: string;
  description?: string;
  auth: { scheme: string; header: string; secretEnv: string; toleranceSeconds?: number };
  schema: boolean;
  event: Record<string, unknown>;
  maxBodyBytes: number;
  rateLimit: { perSecond: number; burst: number };
}

export function HooksPage() {
  const list = useLoad(() => api<{ hooks: Hook[] }>('GET', '/api/hooks'), []);
  return html`
    <h1>Hooks</h1>
    <${ErrorBox} error=${list.error} />
    ${
      !list.value
        ? html`<p class="loading">Loading hooks…</p>`
        : list.value.hooks.length === 0
          ? html`<${Empty}>No hooks for this tenant — declare them in a hooks file: <code>${'keel serve --hooks keel.hooks.yaml'}</code><//>`
          : html`<div class="scroll"><table><thead><tr><th>Path</th><th>Authentication</th><th>Limits</th><th>Event</th></tr></thead><tbody>
              ${list.value.hooks.map(
                (h) => html`<tr data-testid="hook">
                  <td><code>POST ${v(h.path)}</code>${h.description ? html`<br /><span class="muted">${v(h.description)}</span>` : ''}</td>
                  <td>${v(h.auth.scheme)} in <code>${v(h.auth.header)}</code><br /><span class="muted">secret from ${v(h.auth.secretEnv)}${h.auth.toleranceSeconds ? `, ±${h.auth.toleranceSeconds} s` : ''}</span></td>
                  <td>${h.maxBodyBytes} bytes, ${h.rateLimit.perSecond}/s (burst ${h.rateLimit.burst})${h.schema ? html`<br /><span class="muted">body schema checked</span>` : ''}</td>
                  <td><${Json} value=${h.event} /></td>
                </tr>`,
              )}
            </tbody></table></div>`
    }
    <${UnroutedSection} />`;
}
