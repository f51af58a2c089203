/**
 * What changed between two versions of a workflow (`keel diff`, GET /api/workflows/{id}/diff):
 * pick any two; each change is named by its area, and a change no run would decide otherwise
 * (a rename, a rewording, a test) is set apart.
 */
import { useState } from 'preact/hooks';
import { api, type Diff, query } from './api.ts';
import { html } from './html.ts';
import { ErrorBox, useLoad } from './ui.ts';
import { v } from './visible.ts';

export const wfPath = (id: string) => `/api/workflows/${encodeURIComponent(id)}`;

export function DiffView({ workflowId, versions }: { workflowId: string; versions: number[] }) {
  const [pair, setPair] = useState({
    from: versions[versions.length - 2] ?? versions[0],
    to: versions[versions.length - 1],
  });
  const d = useLoad(
    () =>
      pair.from && pair.to && pair.from !== pair.to
        ? api<Diff>('GET', `${wfPath(workflowId)}/diff${query({ from: pair.from, to: pair.to })}`)
        : Promise.resolve(undefined),
    [workflowId, pair.from, pair.to],
  );
  const pick = (k: 'from' | 'to') => (e: Event) =>
    setPair({ ...pair, [k]: Number((e.target as HTMLSelectElement).value) });
  const opts = (sel: number | undefined) =>
    versions.map((x) => html`<option value=${String(x)} selected=${x === sel}>v${x}</option>`);
  return html`<section class="diff">
    <h2>Diff</h2>
    <label>from <select onChange=${pick('from')}>${opts(pair.from)}</select></label>
    <label>to <select onChange=${pick('to')}>${opts(pair.to)}</select></label>
    <${ErrorBox} error=${d.error} />
    ${d.value ? html`<${DiffList} diff=${d.value} />` : pair.from === pair.to ? html`<p class="muted">Pick two versions.</p>` : null}
  </section>`;
}

export function DiffList({ diff }: { diff: Diff }) {
  if (diff.same) return html`<p>v${diff.from} and v${diff.to} are the same document.</p>`;
  return html`${diff.sameBehaviour ? html`<p>No behaviour change.</p>` : null}
    <ul class="changes">${diff.changes.map((c) => html`<li class=${c.behaviour ? '' : 'muted'}><span class="tag">${v(c.area)}</span> ${v(c.text)}</li>`)}</ul>`;
}
