/**
 * Real `keel worker` child processes for crash tests and the bench: started from the sources
 * with `--json`, ready once they print their `started` event, stopped with SIGTERM (graceful) or
 * killed with SIGKILL (a crash). Output is kept for assertion messages; nothing here asserts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { KEEL_COMMAND } from './keel-command.ts';

export interface WorkerProcessOptions {
  readonly store: string;
  /** A tool pack module (`--tools`). */
  readonly tools?: string;
  readonly id?: string;
  readonly concurrency?: number;
  readonly leaseMs?: number;
  readonly pollMs?: number;
  readonly env?: Readonly<Record<string, string>>;
  /** Options for node itself, before the command (e.g. `--cpu-prof`). */
  readonly nodeArgs?: readonly string[];
}

export interface WorkerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export class WorkerProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<WorkerExit>;
  readonly ready: Promise<void>;
  stdout = '';
  stderr = '';
  exit: WorkerExit | undefined;

  constructor(o: WorkerProcessOptions) {
    const args = [
      ...(o.nodeArgs ?? []),
      ...KEEL_COMMAND,
      '--store',
      o.store,
      '--json',
      ...(o.tools ? ['--tools', o.tools] : []),
      'worker',
    ];
    if (o.id) args.push('--id', o.id);
    if (o.concurrency) args.push('--concurrency', String(o.concurrency));
    if (o.leaseMs) args.push('--lease-ms', String(o.leaseMs));
    if (o.pollMs) args.push('--poll-ms', String(o.pollMs));
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...o.env };
    for (const k of ['KEEL_STORE', 'KEEL_TENANT', 'KEEL_WORKERS', 'NODE_TEST_CONTEXT']) delete env[k];
    this.child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (d) => {
      this.stdout += d;
    });
    let onReady: () => void = () => {};
    let onFail: (e: Error) => void = () => {};
    this.ready = new Promise<void>((res, rej) => {
      onReady = res;
      onFail = rej;
    });
    this.child.stderr!.on('data', (d) => {
      this.stderr += d;
      if (this.stderr.includes('"kind":"started"')) onReady();
    });
    this.exited = new Promise((res) => {
      this.child.on('exit', (code, signal) => {
        this.exit = { code, signal };
        onFail(new Error(`worker exited (${code ?? signal}) before it was ready:\n${this.stderr}`));
        res(this.exit);
      });
    });
    this.ready.catch(() => {});
  }

  get pid(): number {
    return this.child.pid!;
  }

  get alive(): boolean {
    return this.exit === undefined;
  }

  kill9(): Promise<WorkerExit> {
    this.child.kill('SIGKILL');
    return this.exited;
  }

  /** SIGTERM, then the exit (graceful shutdown). */
  terminate(): Promise<WorkerExit> {
    this.child.kill('SIGTERM');
    return this.exited;
  }

  /** The JSON summary a stopped worker prints on stdout. */
  summary(): { id: string; claimed: number; completed: number; commits: number } | undefined {
    try {
      return JSON.parse(this.stdout);
    } catch {
      return undefined;
    }
  }
}

export async function startWorkers(n: number, o: WorkerProcessOptions): Promise<WorkerProcess[]> {
  const ws = Array.from({ length: n }, () => new WorkerProcess(o));
  await Promise.all(ws.map((w) => w.ready));
  return ws;
}
