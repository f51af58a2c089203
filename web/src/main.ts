/**
 * The operator console: signs in with an API key, then shows the key's tenant its runs, the
 * approvals waiting for a person and its workflows, and drafts a new workflow from plain words. Routes live in the URL's fragment
 * (`#/runs/<id>`), which never reaches the server; the key never appears in a URL.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type Approval, api, prefetch, session, type Who, whenUnauthorized } from './api.ts';
import { DraftPage } from './draft-page.ts';
import { HooksPage } from './hooks.ts';
import { html } from './html.ts';
import { InboxPage } from './inbox.ts';
import { RunPage } from './run-page.ts';
import { RunsPage, runsPageReads } from './runs-page.ts';
import { SignIn } from './sign-in.ts';
import './style.css';
import { POLL_MS, useLoad } from './ui.ts';
import { WorkflowPage, WorkflowsPage } from './workflows.ts';

/** The fragment as a path and its query: `#/runs?status=failed` → ['/runs', {status: 'failed'}]. */
function route(): { path: string; params: URLSearchParams } {
  const raw = location.hash.replace(/^#/, '') || '/runs';
  const [path = '/runs', q = ''] = raw.split('?');
  return { path, params: new URLSearchParams(q) };
}

function useRoute() {
  const [r, setR] = useState(route);
  useEffect(() => {
    const on = () => setR(route());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return r;
}

function Shell({ who, onSignOut }: { who: Who; onSignOut: () => void }) {
  const { path, params } = useRoute();
  const inbox = useLoad(() => api<{ approvals: Approval[] }>('GET', '/api/approvals'), [], POLL_MS);
  const pending = inbox.value?.approvals.length ?? 0;
  const section = path.split('/')[1] ?? 'runs';
  const link = (href: string, name: string, label: unknown) =>
    html`<a href=${href} class=${section === name ? 'active' : ''} aria-current=${section === name ? 'page' : undefined}>${label}</a>`;
  let page: unknown;
  const m = /^\/(runs|workflows)\/(.+)$/.exec(path);
  // Keyed by id: each run's and each workflow's page starts afresh, keeping nothing picked on another.
  if (m?.[1] === 'runs') page = html`<${RunPage} key=${m[2]} runId=${decodeURIComponent(m[2]!)} />`;
  else if (m?.[1] === 'workflows')
    page = html`<${WorkflowPage} key=${m[2]} workflowId=${decodeURIComponent(m[2]!)} who=${who} />`;
  else if (path === '/approvals') page = html`<${InboxPage} who=${who} list=${inbox} />`;
  else if (path === '/workflows') page = html`<${WorkflowsPage} />`;
  else if (path === '/new') page = html`<${DraftPage} />`;
  else if (path === '/hooks') page = html`<${HooksPage} />`;
  else page = html`<${RunsPage} params=${params} />`;
  return html`
    <header>
      <a class="brand" href="#/runs">Keel</a>
      <nav aria-label="Sections">
        ${link('#/runs', 'runs', 'Runs')}
        ${link('#/approvals', 'approvals', html`Approvals <span class=${`count ${pending ? 'some' : ''}`} data-testid="inbox-count" aria-label=${`${pending} pending`}>${pending}</span>`)}
        ${link('#/workflows', 'workflows', 'Workflows')}
        ${link('#/hooks', 'hooks', 'Hooks')}
        ${link('#/new', 'new', 'New workflow')}
      </nav>
      <span class="who" title=${`${who.subject} (${who.kind} key)`}>tenant <strong>${who.tenant}</strong></span>
      <button type="button" class="link" onClick=${onSignOut}>Sign out</button>
    </header>
    <main>${page}</main>`;
}

function App() {
  const [who, setWho] = useState<Who | null | undefined>(undefined);
  const signOut = () => {
    session.signOut();
    setWho(null);
  };
  useEffect(() => {
    whenUnauthorized(signOut);
    if (!session.key()) return setWho(null);
    // The first page's reads go out beside the session check, not one round trip after it.
    const first = route();
    if (first.path === '/runs') for (const p of runsPageReads(first.params)) prefetch(p);
    prefetch('/api/approvals');
    api<Who>('GET', '/api/session').then(setWho, () => setWho(null));
  }, []);
  if (who === undefined) return html`<p class="loading">Loading…</p>`;
  if (who === null) return html`<${SignIn} onSignedIn=${setWho} />`;
  return html`<${Shell} who=${who} onSignOut=${signOut} />`;
}

render(html`<${App} />`, document.getElementById('app')!);
