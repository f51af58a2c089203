/**
 * Restate's ingress as a peer on this machine, for `bench/http-events-bench.ts --restate <dir>`:
 * a restate-server process (its defaults: RocksDB with its write-ahead log fsync'd) and a service
 * process on Restate's TypeScript SDK with one handler of 3 durable steps (`ctx.run`), the same
 * work as Keel's 3-step benchmark run. A client calls `POST /Bench/run` on the ingress and the
 * answer is the handler's result, so one request is one durable run awaited.
 *
 * Nothing of Restate is a dependency of Keel: `<dir>` is a folder where it was installed apart, e.g.
 *
 *   mkdir ../restate-peer && cd ../restate-peer && npm init -y &&
 *     npm i @restatedev/restate-server@1.7.12 @restatedev/restate-sdk@1.17.2
 *
 * Both processes listen on Restate's default ports (ingress 8080, admin 9070, node 5122) and the
 * service on 9080, all on loopback; they are stopped by their PIDs and the data folder removed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stopChild } from './http-bench.ts';

const SERVER_BIN = 'node_modules/@restatedev/restate-server-linux-x64/bin/restate-server';
const SERVICE_PORT = 9080;
export const RESTATE_INGRESS = new URL('http://127.0.0.1:8080');
const ADMIN = 'http://127.0.0.1:9070';

/**
 * The service: 3 `ctx.run` steps, each journaled by the server before the next. The SDK is loaded
 * from `<dir>`; Node 20 lacks `Promise.withResolvers`, which the SDK calls, so it is supplied.
 */
const SERVICE = `
Promise.withResolvers ??= function () {
  let resolve, reject;
  const promise = new Promise((a, b) => { resolve = a; reject = b; });
  return { promise, resolve, reject };
};
const { createRequire } = await import('node:module');
const restate = createRequire(process.env.RESTATE_DIR + '/')('@restatedev/restate-sdk');
const bench = restate.service({
  name: 'Bench',
  handlers: {
    run: async (ctx, input) => {
      await ctx.run('a', () => 1);
      await ctx.run('b', () => 2);
      await ctx.run('c', () => 3);
      return { ok: true, n: input?.n ?? 0 };
    },
  },
});
restate.endpoint().bind(bench).listen(${SERVICE_PORT});
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `f` until it is true, or fails naming `what` after `ms`. */
async function until(what: string, ms: number, f: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await f().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`Restate: ${what} not ready in ${ms} ms`);
    await sleep(200);
  }
}

export class RestatePeer {
  private constructor(
    private readonly children: ChildProcess[],
    private readonly dataDir: string,
  ) {}

  /** The restate-server process's PID (for its CPU). */
  get serverPid(): number {
    return this.children[0]!.pid!;
  }

  /** The service process's PID (for its CPU). */
  get servicePid(): number {
    return this.children[1]!.pid!;
  }

  static async start(installDir: string): Promise<RestatePeer> {
    const dir = resolve(installDir);
    const bin = join(dir, SERVER_BIN);
    if (!existsSync(bin)) throw new Error(`--restate: no ${SERVER_BIN} under ${dir}`);
    const data = mkdtempSync(join(tmpdir(), 'keel-bench-restate-'));
    const script = join(data, 'service.mjs');
    writeFileSync(script, SERVICE);
    const env = { ...process.env, RESTATE_LOGGING: 'WARN', RESTATE_DIR: dir };
    const server = spawn(bin, ['--no-logo', '--listen-mode', 'tcp', '--base-dir', join(data, 'base')], {
      env: { ...env, RUST_LOG: 'warn' },
      stdio: 'ignore',
    });
    const service = spawn(process.execPath, [script], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    const peer = new RestatePeer([server, service], data);
    try {
      await until('admin API', 30_000, async () => (await fetch(`${ADMIN}/health`)).ok);
      await until('service registered', 30_000, async () => {
        const r = await fetch(`${ADMIN}/deployments`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ uri: `http://127.0.0.1:${SERVICE_PORT}`, force: true }),
        });
        return r.ok;
      });
      await until('ingress', 30_000, async () => {
        const r = await fetch(new URL('/Bench/run', RESTATE_INGRESS), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"n":0}',
          signal: AbortSignal.timeout(5_000),
        });
        return r.ok;
      });
      return peer;
    } catch (e) {
      await peer.stop();
      throw e;
    }
  }

  /**
   * Stops Restate's processes (SIGSTOP) while Keel's paths are measured, and lets them go on
   * (SIGCONT) for Restate's own rounds, so neither system's background work (RocksDB's flushes and
   * compactions, Keel's timers) lands in the other's figures.
   */
  pause(): void {
    for (const c of this.children) if (c.exitCode === null && c.pid) process.kill(c.pid, 'SIGSTOP');
  }

  resume(): void {
    for (const c of this.children) if (c.exitCode === null && c.pid) process.kill(c.pid, 'SIGCONT');
  }

  async stop(): Promise<void> {
    this.resume();
    for (const c of this.children) await stopChild(c);
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
