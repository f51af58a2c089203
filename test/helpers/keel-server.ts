/**
 * A real `keel serve` process for end-to-end tests: spawned from the CLI on a sandbox store, on a
 * free loopback port, stopped by its PID. `api` sends JSON with a bearer key and returns status,
 * headers and the parsed body.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { KEEL_COMMAND } from '../../src/testing/keel-command.ts';
import { okJson, REPO, runKeel, type Sandbox } from './keel-cli.ts';

export interface ApiResponse<T = Record<string, unknown>> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

function serverEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const k of ['KEEL_STORE', 'KEEL_TENANT', 'KEEL_WORKERS', 'KEEL_EXPOSE_ENV', 'NODE_TEST_CONTEXT'])
    delete env[k];
  Object.assign(env, extra);
  return env;
}

export class KeelServer {
  readonly url: string;
  readonly pid: number;
  private readonly child: ChildProcess;
  private readonly err: { text: string };

  private constructor(url: string, child: ChildProcess, err: { text: string }) {
    this.url = url;
    this.child = child;
    this.pid = child.pid!;
    this.err = err;
  }

  /** What the server wrote to stderr so far. */
  get stderr(): string {
    return this.err.text;
  }

  /** `store`: a store target other than the sandbox's SQLite file (e.g. a PostgreSQL URL). */
  static async start(
    sandbox: Sandbox,
    extraArgs: readonly string[] = [],
    store = sandbox.store(),
    env: Readonly<Record<string, string>> = {},
  ): Promise<KeelServer> {
    const child = spawn(
      process.execPath,
      [...KEEL_COMMAND, '--store', store, '--json', 'serve', '--port', '0', ...extraArgs],
      {
        cwd: REPO,
        env: serverEnv(env),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    const err = { text: '' };
    child.stderr!.on('data', (d) => {
      err.text += d;
    });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`keel serve did not start in 30 s\n${err.text}`)),
        30_000,
      );
      child.stdout!.on('data', (d) => {
        out += d;
        // --json prints one (pretty) JSON document once the server listens.
        let info: { url?: string } | undefined;
        try {
          info = JSON.parse(out) as { url?: string };
        } catch {
          return;
        }
        clearTimeout(timer);
        if (info.url) resolve(info.url);
        else reject(new Error(`keel serve printed ${out}`));
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`keel serve exited ${code}\n${err.text}`));
      });
    });
    return new KeelServer(url, child, err);
  }

  /** SIGKILL, and wait until the process is gone. */
  async kill9(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGKILL');
    await exited;
  }

  /**
   * SIGTERM, then wait for the exit (SIGKILL after 30 s: a server finishes its current steps first,
   * which on a loaded 2-core machine took over 10 s once); returns the exit code (null: killed).
   */
  async stop(): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.child.exitCode;
    const exited = once(this.child, 'exit') as Promise<[number | null]>;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
    const [code] = await exited;
    clearTimeout(timer);
    return code;
  }

  async api<T = Record<string, unknown>>(
    method: string,
    path: string,
    o: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.key) headers.Authorization = `Bearer ${o.key}`;
    if (o.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers,
      ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as T };
  }

  /** Polls a run snapshot until `until(status)` or the deadline. */
  async waitFor(path: string, key: string, until: (status: string) => boolean, ms = 15_000) {
    const deadline = Date.now() + ms;
    for (;;) {
      const r = await this.api<{ status: string; currentNodeId?: string }>('GET', path, { key });
      if (r.status === 200 && until(r.body.status)) return r.body;
      if (Date.now() > deadline) throw new Error(`${path}: still ${JSON.stringify(r.body)} after ${ms} ms`);
      await new Promise((res) => setTimeout(res, 50));
    }
  }
}

/** Creates an API key for `tenant` through the real CLI and returns it. */
export function createKey(sandbox: Sandbox, tenant: string, store?: string): string {
  const args = ['keys', 'create', '--tenant', tenant, '--json'];
  const r = store === undefined ? sandbox.keel(args) : runKeel(['--store', store, ...args]);
  return okJson<{ key: string }>(r).key;
}
