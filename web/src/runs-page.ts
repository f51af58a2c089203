/**
 * Runs: counts by status, filters (workflow, version, status, time) and a search (a subject or a
 * run id, run-search.ts) kept in the URL fragment, a jump to a date (the runs before the end of that
 * day), one page at a time by the API's cursor. The first page reads itself again every few
 * seconds, so new runs and status changes appear; later pages hold still while they are read.
 */
import { useState } from 'preact/hooks';
import { api, query, type Run, type Version } from './api.ts';
import { fromLocalInput, RUN_STATUSES, shortHash, statusLabel } from './format.ts';
import { html } from './html.ts';
import { dayBefore, endOfDay, searchQuery, subjectFallback } from './run-search.ts';
import { Empty, ErrorBox, POLL_MS, Status, Time, useLoad } from './ui.ts';
import { v } from './visible.ts';

const PAGE = 50;

type Filters = {
  workflowId: string;
  version: string;
  status: string;
  since: string;
  until: string;
  q: string;
};
const FIELDS = ['workflowId', 'version', 'status', 'since', 'until', 'q'] as const;
type Page = { runs: Run[]; next?: string };

function setFilters(f: Filters): void {
  const q = new URLSearchParams();
  for (const k of FIELDS) if (f[k]) q.set(k, f[k]);
  const s = q.toString();
  location.hash = `#/runs${s ? `?${s}` : ''}`;
}

/** A `datetime-local` value (the browser's zone) for an ISO instant. */
function toLocalInput(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

function filtersOf(params: URLSearchParams): Filters {
  return {
    workflowId: params.get('workflowId') ?? '',
    version: params.get('version') ?? '',
    status: params.get('status') ?? '',
    since: params.get('since') ?? '',
    until: params.get('until') ?? '',
    q: params.get('q') ?? '',
  };
}

/** The filters the counts and every page share (the version only with its workflow). */
function filterQueryOf(f: Filters) {
  return { workflowId: f.workflowId, version: f.workflowId ? f.version : '', since: f.since, until: f.until };
}

/** A page of runs: the filters, a search (run-search.ts) and the cursor of the page before. */
function listPath(f: Filters, search: Record<string, string>, cursor?: string): string {
  return `/api/runs${query({ ...filterQueryOf(f), ...search, status: f.status, limit: PAGE, cursor })}`;
}

function countsPath(f: Filters): string {
  return `/api/runs/counts${query({ workflowId: f.workflowId, version: f.workflowId ? f.version : '' })}`;
}

/** What the runs page reads first, so opening the console can start it beside the session check. */
export function runsPageReads(params: URLSearchParams): string[] {
  const f = filtersOf(params);
  return [listPath(f, searchQuery(f.q)), countsPath(f), '/api/workflows'];
}

export function RunsPage({ params }: { params: URLSearchParams }) {
  const f = filtersOf(params);
  const key = FIELDS.map((k) => f[k]).join('|');
  // Cursors of the pages before this one: [] on the first page.
  const [cursors, setCursors] = useState<{ key: string; stack: string[] }>({ key, stack: [] });
  const stack = cursors.key === key ? cursors.stack : [];
  const cursor = stack[stack.length - 1];
  const filterQuery = filterQueryOf(f);
  const list = (search: Record<string, string>) => api<Page>('GET', listPath(f, search, cursor));
  const runs = useLoad(
    async () => {
      const page = await list(searchQuery(f.q));
      // Hex digits that start no run id may be a subject (a ticket numbered 12345678).
      const fallback = subjectFallback(f.q);
      return page.runs.length === 0 && !cursor && fallback ? list(fallback) : page;
    },
    [key, cursor],
    cursor ? 0 : POLL_MS,
  );
  const counts = useLoad(
    () => api<{ counts: Record<string, number>; total: number }>('GET', countsPath(f)),
    [f.workflowId, f.version],
    POLL_MS,
  );
  const workflows = useLoad(() => api<{ versions: Version[] }>('GET', '/api/workflows'), []);
  const ids = [...new Set((workflows.value?.versions ?? []).map((v) => v.workflowId))].sort();
  const versions = (workflows.value?.versions ?? [])
    .filter((v) => v.workflowId === f.workflowId)
    .map((v) => v.version);
  const change = (k: keyof Filters) => (e: Event) => {
    const v = (e.target as HTMLInputElement).value;
    const next = { ...f, [k]: k === 'since' || k === 'until' ? (fromLocalInput(v) ?? '') : v };
    if (k === 'workflowId') next.version = '';
    setFilters(next);
  };
  // The box is uncontrolled (keyed by the search it shows): the page's reads every two seconds
  // redraw it, and would otherwise put back the last search over what a person is typing.
  const search = (e: Event) => {
    e.preventDefault();
    const box = (e.currentTarget as HTMLFormElement).elements.namedItem('q') as HTMLInputElement;
    setFilters({ ...f, q: box.value.trim() });
  };
  const jump = (e: Event) => {
    const day = (e.target as HTMLInputElement).value;
    setFilters({ ...f, until: (day && endOfDay(day)) || '' });
  };
  const c = counts.value;
  const shown = runs.value?.runs ?? [];
  const filtered = FIELDS.some((k) => f[k]);
  return html`
    <h1>Runs</h1>
    <div class="counts" aria-label="Runs by status">
      <a href="#/runs${query({ ...filterQuery })}" class=${f.status ? '' : 'active'}>all <b>${c?.total ?? '…'}</b></a>
      ${RUN_STATUSES.map(
        (s) =>
          html`<a href=${`#/runs${query({ ...filterQuery, status: s })}`} class=${`s-${s} ${f.status === s ? 'active' : ''}`}>${statusLabel(s)} <b>${c?.counts[s] ?? 0}</b></a>`,
      )}
    </div>
    <form class="find" role="search" onSubmit=${search}>
      <input type="search" name="q" key=${f.q} defaultValue=${f.q} placeholder="Subject or run id" aria-label="Find a run by subject or run id" maxlength="512" />
      <button type="submit">Find</button>
      <label>Jump to <input type="date" name="jump" value=${f.until ? dayBefore(f.until) : ''} onChange=${jump} /></label>
    </form>
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <label>Workflow <select name="workflowId" value=${f.workflowId} onChange=${change('workflowId')}>
        <option value="">any</option>
        ${ids.map((id) => html`<option value=${id}>${id}</option>`)}
      </select></label>
      <label>Version <select name="version" value=${f.version} onChange=${change('version')} disabled=${!f.workflowId}>
        <option value="">any</option>
        ${versions.map((v) => html`<option value=${String(v)}>v${v}</option>`)}
      </select></label>
      <label>Status <select name="status" value=${f.status} onChange=${change('status')}>
        <option value="">any</option>
        ${RUN_STATUSES.map((s) => html`<option value=${s}>${statusLabel(s)}</option>`)}
      </select></label>
      <label>Since <input type="datetime-local" name="since" value=${f.since ? toLocalInput(f.since) : ''} onChange=${change('since')} /></label>
      <label>Until <input type="datetime-local" name="until" value=${f.until ? toLocalInput(f.until) : ''} onChange=${change('until')} /></label>
      ${filtered ? html`<a href="#/runs" class="clear">Clear filters</a>` : null}
    </form>
    <${ErrorBox} error=${runs.error ?? counts.error} />
    ${
      runs.loading && !runs.value
        ? html`<p class="loading">Loading runs…</p>`
        : shown.length === 0
          ? html`<${Empty}>${
              filtered || stack.length
                ? 'No runs match these filters.'
                : html`No runs yet — emit an event: <code>${'npx keel emit <event.json>'}</code>`
            }<//>`
          : html`<div class="scroll"><table class="runs">
              <thead><tr><th>Started</th><th>Subject</th><th>Workflow</th><th>Status</th><th>Event</th><th>Entries</th><th>Run</th></tr></thead>
              <tbody>
                ${shown.map(
                  (r) => html`<tr data-run=${r.runId}>
                    <td><${Time} at=${r.createdAt} /></td>
                    <td class="subject">${r.subject ? html`<a href=${`#/runs${query({ q: r.subject })}`}>${v(r.subject)}</a>` : html`<span class="muted">—</span>`}</td>
                    <td>${v(r.workflowId)} <span class="muted">v${r.version}</span>${r.mode ? html` <span class="tag">${r.mode}</span>` : null}</td>
                    <td><${Status} status=${r.status} /></td>
                    <td>${v(r.eventType)} <span class="muted">${v(r.eventId)}</span></td>
                    <td>${r.head.seq + 1}</td>
                    <td><a href=${`#/runs/${encodeURIComponent(r.runId)}`}><code>${shortHash(r.runId)}</code></a></td>
                  </tr>`,
                )}
              </tbody>
            </table></div>`
    }
    <div class="pager">
      <button type="button" disabled=${stack.length === 0} onClick=${() => setCursors({ key, stack: stack.slice(0, -1) })}>← Newer</button>
      <span class="muted">page ${stack.length + 1}</span>
      <button type="button" disabled=${!runs.value?.next} onClick=${() => setCursors({ key, stack: [...stack, runs.value!.next!] })}>Older →</button>
    </div>`;
}
