/**
 * The HTTP app of `keel serve` over a Keel (in-memory SQLite unless given another store), driven
 * through `app.request` (no socket): for route tests. Two tenants with a key each (acme as dana,
 * globex as eve); `api` sends JSON as acme unless told otherwise (`key: null` sends no
 * Authorization header).
 */
import { after, before } from 'node:test';
import { createKeel, type Keel, type PoliciesConfig } from '../../src/app/index.ts';
import type { RawSources, Store, ToolDefinition } from '../../src/ports/index.ts';
import { createServerApp } from '../../src/server/app.ts';

export type Json = Record<string, unknown>;

export interface InProcessServer {
  readonly keel: Keel;
  readonly server: ReturnType<typeof createServerApp>;
  readonly acme: string;
  readonly globex: string;
  api(
    method: string,
    path: string,
    o?: { key?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; body: Json; text: string }>;
}

export interface InProcessOptions {
  /** The store, opened in the `before` hook (default: a fresh in-memory SQLite store). */
  readonly store?: () => Promise<Store>;
  /** Dropped after the Keel closed its store (a scratch PostgreSQL schema). */
  readonly cleanup?: () => Promise<void>;
  readonly tools?: readonly ToolDefinition[];
  readonly sources?: RawSources;
  readonly policies?: PoliciesConfig;
}

/**
 * Registers before/after hooks in the calling test file (or describe block) and returns the
 * server they set up.
 */
export function inProcessServer(o: InProcessOptions = {}): InProcessServer {
  const s = {} as { keel: Keel; server: ReturnType<typeof createServerApp>; acme: string; globex: string };
  before(async () => {
    s.keel = createKeel({
      store: o.store ? await o.store() : ':memory:',
      ...(o.tools ? { tools: o.tools } : {}),
      ...(o.sources ? { sources: o.sources } : {}),
      ...(o.policies ? { policies: o.policies } : {}),
    });
    s.server = createServerApp(s.keel, { log: () => {} });
    s.acme = (await s.keel.keys.create('acme', 'dana')).key;
    s.globex = (await s.keel.keys.create('globex', 'eve')).key;
  });
  after(async () => {
    await s.server.host.drain();
    await s.keel.close();
    await o.cleanup?.();
  });
  return {
    get keel() {
      return s.keel;
    },
    get server() {
      return s.server;
    },
    get acme() {
      return s.acme;
    },
    get globex() {
      return s.globex;
    },
    async api(method, path, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      const key = o.key === undefined ? s.acme : o.key;
      if (key) headers.Authorization = `Bearer ${key}`;
      if (o.body !== undefined || o.raw !== undefined) headers['Content-Type'] ??= 'application/json';
      const res = await s.server.app.request(path, {
        method,
        headers,
        ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
        ...(o.raw !== undefined ? { body: o.raw } : {}),
      });
      const text = await res.text();
      return {
        status: res.status,
        headers: res.headers,
        body: (text ? JSON.parse(text) : null) as Json,
        text,
      };
    },
  };
}
