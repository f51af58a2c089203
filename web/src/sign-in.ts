/** Sign-in: an API key, checked against the API before it is kept (in sessionStorage only). */
import { useState } from 'preact/hooks';
import { type ApiError, api, session, type Who } from './api.ts';
import { html } from './html.ts';
import { asApiError, ErrorBox } from './ui.ts';

export function SignIn({ onSignedIn }: { onSignedIn: (w: Who) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const k = key.trim();
    if (!k) return;
    setBusy(true);
    try {
      const who = await api<Who>('GET', '/api/session', undefined, k);
      session.signIn(k);
      setKey('');
      onSignedIn(who);
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="sign-in" onSubmit=${submit} method="post" action="javascript:void 0">
    <h1>Keel console</h1>
    <p>Sign in with an API key. You will see its tenant's runs, approvals and workflows. The key is kept in this tab only.</p>
    <label for="api-key">API key</label>
    <input id="api-key" name="api-key" type="password" autocomplete="off" autofocus value=${key}
      onInput=${(e: Event) => setKey((e.target as HTMLInputElement).value)} />
    <button type="submit" disabled=${busy || !key.trim()}>Sign in</button>
    <${ErrorBox} error=${error} />
    <p class="hint">No key yet? <code>npx keel keys create --tenant acme --subject you@example.com --human</code></p>
  </form>`;
}
