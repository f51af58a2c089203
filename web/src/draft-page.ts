/**
 * A new workflow from a request in plain words (`keel draft` in the console): the request, and
 * optionally an id and sample events, go to POST /api/drafts; the page shows the draft read back in
 * plain words with its risks, the questions the compiler could not answer (it never guesses), its
 * notes and the spec as YAML. Only a draft without questions can be published, only as DRAFT, and
 * only by a second call naming the hash of the draft shown: changing the request clears the draft,
 * so what is confirmed is always what was read.
 */
import { useState } from 'preact/hooks';
import { ApiError, api, type Draft } from './api.ts';
import { ExplainView } from './explain-view.ts';
import { html } from './html.ts';
import { ErrorBox, useAction } from './ui.ts';
import { v } from './visible.ts';
import { toYaml } from './yaml-view.ts';

/** The request's limit in characters (the API refuses longer ones). */
const MAX_REQUEST = 2000;

interface Form {
  request: string;
  id: string;
  samples: string;
}

/** The POST body for `form`; sample events must be a JSON object or array, else an error naming them. */
function bodyOf(form: Form): Record<string, unknown> {
  const body: Record<string, unknown> = { request: form.request.trim() };
  if (form.id.trim()) body.id = form.id.trim();
  if (form.samples.trim()) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(form.samples);
    } catch (e) {
      throw new ApiError(0, 'bad_request', `Sample events: not JSON (${(e as Error).message})`, {
        field: 'samples',
      });
    }
    if (typeof parsed !== 'object' || parsed === null)
      throw new ApiError(0, 'bad_request', 'Sample events: expected an event object or an array of them', {
        field: 'samples',
      });
    body.samples = Array.isArray(parsed) ? parsed : [parsed];
  }
  return body;
}

export function DraftPage() {
  const [form, setForm] = useState<Form>({ request: '', id: '', samples: '' });
  const [draft, setDraft] = useState<Draft | undefined>(undefined);
  const [published, setPublished] = useState<Draft['published']>(null);
  const act = useAction();
  const edit = (k: keyof Form) => (e: Event) => {
    setForm({ ...form, [k]: (e.target as HTMLInputElement | HTMLTextAreaElement).value });
    setDraft(undefined);
    setPublished(null);
  };
  const run = async (e: Event) => {
    e.preventDefault();
    setPublished(null);
    const d = await act.run(() => api<Draft>('POST', '/api/drafts', bodyOf(form)));
    setDraft(d);
  };
  const publish = async () => {
    if (!draft?.spec || !draft.specHash) return;
    if (
      !confirm(
        `Publish ${draft.spec.id} v${draft.spec.version} as DRAFT? It handles no events until it is promoted, step by step, with evidence.`,
      )
    )
      return;
    const d = await act.run(() =>
      api<Draft>('POST', '/api/drafts', { ...bodyOf(form), confirm: draft.specHash }),
    );
    if (d) setPublished(d.published);
  };
  const spec = draft?.spec ?? draft?.partial;
  return html`
    <h1>New workflow</h1>
    <p class="muted">Say what it should do, in plain words. Keel drafts a spec over this tenant's tools, reads it back, and asks what it could not map; it never guesses. Nothing runs: a confirmed draft is published as DRAFT, and earns each step toward handling events with tests and shadow runs.</p>
    <form class="draft" onSubmit=${run}>
      <label>Request
        <textarea rows="4" maxlength=${MAX_REQUEST} value=${form.request} onInput=${edit('request')} placeholder="When a refund is requested in USD, reply to the customer, then refund anyone under $50."></textarea>
      </label>
      <label>Workflow id <span class="muted">(optional)</span>
        <input type="text" value=${form.id} onInput=${edit('id')} placeholder="refund-under-50" />
      </label>
      <details>
        <summary>Sample events <span class="muted">(optional: the events your system sends, as JSON)</span></summary>
        <label>Sample events
          <textarea rows="5" value=${form.samples} onInput=${edit('samples')} placeholder='[{"type": "refund.requested", "payload": {"refund_amount": 20, "currency": "USD"}}]'></textarea>
        </label>
      </details>
      <button type="submit" disabled=${act.busy || !form.request.trim()}>Draft</button>
    </form>
    <${ErrorBox} error=${act.error} />
    ${
      draft
        ? html`<section class="draft-result" data-testid="draft">
        ${
          draft.questions.length
            ? html`<div class="questions" data-testid="questions">
              <h2>Questions (${draft.questions.length})</h2>
              <p class="muted">Answer them in the request and draft again; a draft with questions is never published.</p>
              <ol>${draft.questions.map((q) => html`<li>${v(q.question)}</li>`)}</ol>
            </div>`
            : null
        }
        ${draft.readBack ? html`<${ExplainView} readBack=${draft.readBack} />` : null}
        ${draft.notes.length ? html`<ul class="notes">${draft.notes.map((n) => html`<li>${v(n)}</li>`)}</ul>` : null}
        ${spec ? html`<h3>${draft.spec ? 'The draft spec' : 'The incomplete draft'}</h3><pre class="yaml" aria-label="Draft spec">${toYaml(spec)}</pre>` : null}
        ${
          published
            ? html`<p class="ok" data-testid="published">${published.created ? 'Published' : 'Already published'}: <a href=${`#/workflows/${encodeURIComponent(published.workflowId)}`}>${v(published.workflowId)} v${published.version}</a> as ${published.status}.</p>`
            : draft.publishable
              ? html`<button type="button" onClick=${publish} disabled=${act.busy}>Publish as DRAFT</button>`
              : null
        }
      </section>`
        : null
    }`;
}
