/**
 * The `keel` command run in a worker thread of the test process (cli-worker.ts): the same `main`
 * the binary runs, with its own stdout, stderr and exit code per command, at a fraction of a
 * spawned process's start-up. A command that does not end within the timeout fails the test (and
 * the worker is stopped).
 */
import { Worker } from 'node:worker_threads';

const END = '\u0000end-of-command';

export interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export class CliWorker {
  private readonly worker: Worker;
  private out = '';
  private err = '';
  private next = 0;

  /** `env`: more environment for every command this worker runs (e.g. HELPDESK_DB, KEEL_DEBUG). */
  constructor(env: Readonly<Record<string, string>> = {}) {
    // A worker's entry is loaded before any --import hook: it registers tsx, then loads the TS entry.
    const tsx = import.meta.resolve('tsx/esm/api');
    const entry = new URL('./cli-worker.ts', import.meta.url).href;
    const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
    this.worker = new Worker(boot, {
      eval: true,
      stdout: true,
      stderr: true,
      env: { ...process.env, NO_COLOR: '1', KEEL_STORE: '', KEEL_TENANT: '', KEEL_USER: 'tester', ...env },
    });
    this.worker.stdout.on('data', (d) => {
      this.out += d;
    });
    this.worker.stderr.on('data', (d) => {
      this.err += d;
    });
  }

  /** `keel ...argv`; resolves when both streams carried the command's end marker. */
  async run(argv: readonly string[], timeoutMs = 20_000): Promise<Ran> {
    const id = ++this.next;
    const marker = `${END} ${id}\n`;
    const deadline = Date.now() + timeoutMs;
    const code = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.worker.off('message', onMessage);
        reject(new Error(`keel ${argv.join(' ').slice(0, 200)} did not end in ${timeoutMs} ms`));
      }, timeoutMs);
      const onMessage = (m: { id: number; code: number }) => {
        if (m.id !== id) return;
        clearTimeout(timer);
        this.worker.off('message', onMessage);
        resolve(m.code);
      };
      this.worker.on('message', onMessage);
      this.worker.postMessage({ id, argv: [...argv] });
    });
    while (!(this.out.includes(marker) && this.err.includes(marker))) {
      if (Date.now() > deadline) throw new Error(`keel ${argv.join(' ').slice(0, 200)}: output never ended`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const stdout = this.out.slice(0, this.out.indexOf(marker));
    const stderr = this.err.slice(0, this.err.indexOf(marker));
    this.out = this.out.slice(this.out.indexOf(marker) + marker.length);
    this.err = this.err.slice(this.err.indexOf(marker) + marker.length);
    return { code, stdout, stderr };
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}
