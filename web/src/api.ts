/**
 * The console's only way to Keel: the documented Keel API under /api, with the signed-in key in
 * the Authorization header. The key lives in sessionStorage (gone when the tab closes), never in a
 * URL, a query string or a log line. A refusal becomes an ApiError carrying Keel's message, code
 * and details, so pages show what the API said instead of swallowing it. Every string of an
 * answer is read with its direction controls shown as escapes (visible.ts).
 */
import type { TriggerView } from './trigger-text.ts';
import { visibleValue } from './visible.ts';

const KEY = 'keel.apiKey';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  signIn: (key: string) => sessionStorage.setItem(KEY, key),
  signOut: () => sessionStorage.removeItem(KEY),
};

/** Called when the key is refused (401), so the shell can return to sign-in. */
let onUnauthorized: () => void = () => {};
export function whenUnauthorized(f: () => void): void {
  onUnauthorized = f;
}

export function api<T>(
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  key = session.key(),
): Promise<T> {
  const started = method === 'GET' ? early.get(path) : undefined;
  if (started) early.delete(path);
  // Only a read started with this very key: one made before a sign-in again is dropped.
  if (started && started.key === key) return started.answer as Promise<T>;
  return call<T>(method, path, body, key);
}

/** GETs started before the page that reads them is drawn (prefetch), each taken once by api(). */
const early = new Map<string, { key: string | null; answer: Promise<unknown> }>();

/**
 * Starts the GET of `path` now, for the page about to be drawn to take (api() hands it over once,
 * to a call with the same key): on opening the console its first page's reads go out beside the
 * session check, not one round trip after it.
 */
export function prefetch(path: string): void {
  if (early.has(path)) return;
  const key = session.key();
  const answer = call('GET', path, undefined, key);
  answer.catch(() => {}); // a refusal is seen by the page that takes it (or by the session check)
  early.set(path, { key, answer });
}

async function call<T>(method: 'GET' | 'POST', path: string, body: unknown, key: string | null): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (key) headers.Authorization = `Bearer ${key}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'omit',
      cache: 'no-store',
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch (e) {
    throw new ApiError(0, 'network', `Keel did not answer: ${(e as Error).message}`);
  }
  const text = await res.text();
  let json: unknown;
  try {
    // Every string of every answer with its direction controls shown (visible.ts): nothing the
    // console shows can reorder itself or the sentence it sits in.
    json = visibleValue(text ? JSON.parse(text) : {});
  } catch {
    throw new ApiError(
      res.status,
      'bad_response',
      `Keel answered ${res.status} with something that is not JSON`,
    );
  }
  if (!res.ok) {
    const e = json as { error?: unknown; message?: unknown; details?: Record<string, unknown> };
    const code = typeof e.error === 'string' ? e.error : String(res.status);
    if (res.status === 401) onUnauthorized();
    throw new ApiError(
      res.status,
      code,
      typeof e.message === 'string' ? e.message : `${res.status} ${code}`,
      e.details ?? {},
    );
  }
  return json as T;
}

/** A query string from the set values only. */
export function query(q: Record<string, string | number | undefined | null>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

export const runPath = (runId: string) => `/api/runs/${encodeURIComponent(runId)}`;

// The shapes the console reads (as the API documents them).
/** Who the session's key is (`GET /api/session`): its tenant, subject and kind. */
export interface Who {
  tenant: string;
  subject: string;
  kind: 'human' | 'service';
}

export interface Run {
  runId: string;
  workflowId: string;
  version: number;
  status: string;
  head: { seq: number; hash: string };
  eventId: string;
  eventType: string;
  createdAt: string;
  updatedAt: string;
  /** The starting event's subject (a ticket, a customer); absent when it named none. */
  subject?: string;
  mode?: string;
  shadowOf?: string;
}
export interface HistoryLine {
  seq: number;
  at: string;
  kind: string;
  text: string;
}
export interface Entry {
  seq: number;
  kind: string;
  at: string;
  hash: string;
  prevHash: string | null;
  payload: Record<string, unknown>;
}
export interface Verification {
  ok: boolean;
  entries: number;
  head?: { seq: number; hash: string };
  failure?: { code: string; seq: number; message: string };
}
export interface Approval {
  runId: string;
  workflowId?: string;
  version?: number;
  step: string;
  tool: string;
  args: Record<string, unknown>;
  reason: string;
  requestedAt: string;
  costCents?: number;
  /** Why it waits: a policy rule (`policy.rule`, with every rule consulted in `policy.trace`), the destructive-tool guardrail, or a tool that always asks. */
  cause?: 'policy' | 'destructive' | 'gate';
  policy?: { outcome: string; rule?: string; trace?: unknown };
  invalid?: { code: string; seq: number; message: string };
}
export interface Version {
  workflowId: string;
  version: number;
  specHash: string;
  status: string;
  publishedAt: string;
  publishedBy: string;
  spec?: Spec;
}
export interface Spec {
  id: string;
  version: number;
  triggers?: TriggerView[];
  steps: FlowStep[];
  limits?: Record<string, unknown>;
  [k: string]: unknown;
}
/** A step of the list: a tool step (optionally guarded by `if`), a choice (`choose` + `else`), a wait, parallel branches, or a loop (`forEach` + `steps`). */
export interface FlowStep {
  name: string;
  tool?: string;
  args?: Record<string, unknown>;
  if?: string;
  choose?: { when: string; steps: FlowStep[] }[];
  else?: FlowStep[];
  /** A durable timer: the run suspends `for` a duration (`15m`) or `until` an instant (a template). */
  wait?: {
    for?: string;
    until?: string;
    event?: string;
    match?: string;
    timeout?: string;
    lookback?: string;
  };
  /** Branches run at the same time; the step after runs when all (or the first) finish. */
  parallel?: { join: 'all' | 'first'; branches: Record<string, FlowStep[]> };
  /** A deadline on the step's approval: after `timeout`, `then` deny or escalate to a group (docs/governance.md). */
  approval?: { timeout: string; then: 'deny' | { escalate: string; timeout?: string }; remind?: string };
  /** A bounded iteration: `steps` run once per item of `items`, read as `as`, at most `max` items. */
  forEach?: { items: string; as: string; max: number };
  steps?: FlowStep[];
}
export interface Promotion {
  workflowId: string;
  version: number;
  from: string;
  to: string;
  by: string;
  at: string;
  kind: string;
  override?: { reason: string };
  hash: string;
}
export interface GateReport {
  version: number;
  from: string;
  to: string;
  met: boolean;
  conditions: { id: string; met: boolean; text: string; needed?: number; found?: number }[];
  notes: string[];
  diff?: Diff;
}
export interface Diff {
  from: number;
  to: number;
  same: boolean;
  /** Only renames, rewordings, tests and gates changed: no run would decide otherwise. */
  sameBehaviour: boolean;
  changes: { area: string; text: string; behaviour: boolean }[];
}
/** A spec read back in plain words (keel explain). */
export interface ReadBack {
  summary: string;
  trigger: string[];
  steps: string[];
  limits: string[];
  risks: string[];
  /** What the tenant's policy does with each step's calls (empty without a policy). */
  policy: string[];
  text: string;
}
export interface Question {
  about: string;
  question: string;
  candidates?: string[];
}
/** What POST /api/drafts answers. */
export interface Draft {
  spec: Spec | null;
  partial?: Spec;
  specHash: string | null;
  readBack: ReadBack | null;
  questions: Question[];
  notes: string[];
  publishable: boolean;
  published: (Version & { created: boolean }) | null;
}
