/**
 * A spec read back in plain words (`keel explain`, GET /api/workflows/{id}/explain, the read-back of
 * a draft): what starts it, its steps, its limits, what the tenant's policy does with each step, and its risks set apart, so a person reviewing a
 * version or a draft reads what it does before the YAML.
 */
import type { ReadBack } from './api.ts';
import { html } from './html.ts';

export function ExplainView({ readBack }: { readBack: ReadBack }) {
  const r = readBack;
  return html`<section class="explain" data-testid="explain" aria-label="In plain words">
    <h3>In plain words</h3>
    <p class="summary">${r.summary}</p>
    <dl>
      <dt>Starts</dt>
      ${r.trigger.map((t) => html`<dd>${t}</dd>`)}
      <dt>Steps</dt>
      ${r.steps.map((s) => html`<dd>${s}</dd>`)}
      <dt>Limits</dt>
      ${r.limits.map((l) => html`<dd>${l}</dd>`)}
      ${r.policy.length ? html`<dt>Policy</dt>${r.policy.map((l) => html`<dd>${l}</dd>`)}` : null}
    </dl>
    <h4>Risks</h4>
    <ul class="risks" data-testid="risks">${r.risks.map((x) => html`<li>${x}</li>`)}</ul>
  </section>`;
}
