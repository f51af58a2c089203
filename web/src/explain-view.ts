/**
 * A spec read back in plain words (`keel explain`, GET /api/workflows/{id}/explain, the read-back of
 * a draft): what starts it, its steps, its limits, what the tenant's policy does with each step, and its risks set apart, so a person reviewing a
 * version or a draft reads what it does before the YAML.
 */
import type { ReadBack } from './api.ts';
import { html } from './html.ts';
import { v } from './visible.ts';

export function ExplainView({ readBack }: { readBack: ReadBack }) {
  const r = readBack;
  return html`<section class="explain" data-testid="explain" aria-label="In plain words">
    <h3>In plain words</h3>
    <p class="summary">${v(r.summary)}</p>
    <dl>
      <dt>Starts</dt>
      ${r.trigger.map((t) => html`<dd>${v(t)}</dd>`)}
      <dt>Steps</dt>
      ${r.steps.map((s) => html`<dd>${v(s)}</dd>`)}
      <dt>Limits</dt>
      ${r.limits.map((l) => html`<dd>${v(l)}</dd>`)}
      ${r.policy.length ? html`<dt>Policy</dt>${r.policy.map((l) => html`<dd>${v(l)}</dd>`)}` : null}
    </dl>
    <h4>Risks</h4>
    <ul class="risks" data-testid="risks">${r.risks.map((x) => html`<li>${v(x)}</li>`)}</ul>
  </section>`;
}
