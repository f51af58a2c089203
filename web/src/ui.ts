/** Small pieces every page uses: polling, the error box, a time, a status badge, a confirm button. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.ts';
import { localTime, statusLabel } from './format.ts';
import { html } from './html.ts';
import { v } from './visible.ts';

/** How often live pages read again (the API has no push for the console; polls are cheap reads). */
export const POLL_MS = 2000;

/**
 * Loads `load()` now, again whenever `deps` change, and every `pollMs` while the tab is visible.
 * Keeps the last good value while a later read fails, and says what failed.
 */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[], pollMs = 0) {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const seq = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++seq.current;
    try {
      const v = await load();
      if (mine !== seq.current) return;
      setValue(v);
      setError(undefined);
    } catch (e) {
      if (mine !== seq.current) return;
      setError(asApiError(e));
    } finally {
      if (mine === seq.current) setLoading(false);
    }
  }, deps);
  useEffect(() => {
    setLoading(true);
    setValue(undefined);
    void reload();
    if (!pollMs) return;
    const t = setInterval(() => {
      if (document.visibilityState === 'visible') void reload();
    }, pollMs);
    return () => clearInterval(t);
  }, [reload]);
  return { value, error, loading, reload };
}

export const asApiError = (e: unknown): ApiError =>
  e instanceof ApiError ? e : new ApiError(0, 'internal', (e as Error)?.message ?? String(e));

export function ErrorBox({ error }: { error?: ApiError | undefined }) {
  if (!error) return null;
  return html`<div class="error" role="alert">
    <strong>${v(error.message)}</strong>${error.code ? html` <code>${v(error.code)}</code>` : null}
  </div>`;
}

export function Time({ at }: { at: string }) {
  return html`<time datetime=${at} title=${`${at} (UTC)`}>${localTime(at)}</time>`;
}

export function Status({ status }: { status: string }) {
  return html`<span class=${`status s-${status}`}>${statusLabel(status)}</span>`;
}

/** Runs an action, shows its error, and disables the button while it runs. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const run = useCallback(async <T>(f: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await f();
    } catch (e) {
      setError(asApiError(e));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, setError };
}

export function Json({ value }: { value: unknown }) {
  return html`<pre class="json">${JSON.stringify(value, null, 2)}</pre>`;
}

export function Empty({ children }: { children: unknown }) {
  return html`<div class="empty">${children}</div>`;
}
