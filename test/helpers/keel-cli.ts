/**
 * Drives the real `keel` command (the TypeScript sources through tsx, src/testing/keel-command.ts) as a child
 * process, for end-to-end tests. A Sandbox owns one fresh temporary directory: its store, and any
 * files a test writes; a Sandbox made with `supportDesk` loads the support-desk example's tool pack
 * in every command, with its helpdesk beside the store. Children get a clean environment (no KEEL_*
 * variables from the caller, no colours) and run with the sandbox as their working directory, so
 * nothing ever lands in the repository.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KEEL_COMMAND } from '../../src/testing/keel-command.ts';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const EXAMPLE = join(REPO, 'examples', 'support-desk');
export const EXAMPLE_EVENTS = join(EXAMPLE, 'events');
/** The support-desk example's tool pack as built (dist/, beside the CLI the tests run); its helpdesk file is HELPDESK_DB. */
export const SUPPORT_DESK_PACK = join(REPO, 'dist', 'examples', 'support-desk', 'index.js');

/** The arguments and environment that load the support desk's tools over the helpdesk at `helpdesk`. */
export function supportDesk(helpdesk: string): { args: string[]; env: Record<string, string> } {
  return { args: ['--tools', SUPPORT_DESK_PACK], env: { HELPDESK_DB: helpdesk } };
}

/** Every `sha256:` id Keel prints. */
export const DIGEST = /^sha256:[0-9a-f]{64}$/;

export interface CliOptions {
  /** Extra environment; a value of undefined removes the variable. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  readonly input?: string;
  readonly timeoutMs?: number;
  /**
   * Run the child without privileges: as root, with every capability dropped (setpriv), so file
   * permissions bind it as they bind any user while it still reads the checkout wherever it lies.
   * Not as root, this changes nothing.
   */
  readonly unprivileged?: boolean;
}

const AS_ROOT = process.getuid?.() === 0;

/** The command and arguments that run `node ...args` as `o` asks. */
export function nodeCommand(
  args: readonly string[],
  o: Pick<CliOptions, 'unprivileged'> = {},
): [string, string[]] {
  return o.unprivileged && AS_ROOT
    ? ['setpriv', ['--bounding-set=-all', '--inh-caps=-all', process.execPath, ...args]]
    : [process.execPath, [...args]];
}

export interface CliResult {
  readonly args: readonly string[];
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** The error object `--json` prints on stderr. */
export interface CliError {
  readonly error: string;
  readonly message: string;
  readonly details?: Record<string, unknown>;
}

function childEnv(extra: CliOptions['env'] = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of [
    'KEEL_STORE',
    'KEEL_TENANT',
    'KEEL_USER',
    'KEEL_EXPOSE_ENV',
    'FORCE_COLOR',
    'NODE_TEST_CONTEXT',
  ])
    delete env[k];
  env.NO_COLOR = '1';
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Runs `keel ...args` and waits for it; throws only if it could not run or timed out. */
export function runKeel(args: readonly string[], o: CliOptions = {}): CliResult {
  const started = performance.now();
  const [command, argv] = nodeCommand([...KEEL_COMMAND, ...args], o);
  const r = spawnSync(command, argv, {
    cwd: o.cwd ?? REPO,
    env: childEnv(o.env),
    encoding: 'utf8',
    timeout: o.timeoutMs ?? 20_000,
    ...(o.input === undefined ? {} : { input: o.input }),
  });
  if (r.error) throw new Error(`keel ${args.join(' ')}: ${r.error.message}`);
  if (r.status === null) throw new Error(`keel ${args.join(' ')}: killed by ${r.signal}`);
  return { args, code: r.status, stdout: r.stdout, stderr: r.stderr, ms: performance.now() - started };
}

/**
 * Runs `keel ...args` without blocking this process, so servers the test itself runs (a fake API,
 * a model, a collector) answer the child; resolves when it exits. Throws only if it could not run.
 */
export function runKeelAsync(args: readonly string[], o: CliOptions = {}): Promise<CliResult> {
  const started = performance.now();
  const [command, argv] = nodeCommand([...KEEL_COMMAND, ...args], o);
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      argv,
      { cwd: o.cwd ?? REPO, env: childEnv(o.env), timeout: o.timeoutMs ?? 30_000, encoding: 'utf8' },
      (e, stdout, stderr) => {
        const code = e ? (e as { code?: unknown }).code : 0;
        if (typeof code !== 'number') return reject(new Error(`keel ${args.join(' ')}: ${e!.message}`));
        resolve({ args, code, stdout, stderr, ms: performance.now() - started });
      },
    );
    if (o.input !== undefined) child.stdin?.end(o.input);
  });
}

/** A readable account of an invocation, for assertion messages. */
export function show(r: CliResult): string {
  return `keel ${r.args.join(' ')} -> exit ${r.code}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`;
}

/** Asserts exit 0 and parses stdout as JSON. */
export function okJson<T = unknown>(r: CliResult): T {
  assert.equal(r.code, 0, show(r));
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    assert.fail(`stdout is not JSON\n${show(r)}`);
  }
}

/** Asserts the exit code and parses the `--json` error object printed on stderr. */
export function failJson(r: CliResult, code: number): CliError {
  assert.equal(r.code, code, show(r));
  assert.equal(r.stdout, '', `a failed command prints nothing on stdout\n${show(r)}`);
  const last = r.stderr.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(last) as CliError;
  } catch {
    assert.fail(`stderr does not end with a JSON error\n${show(r)}`);
  }
}

/** Asserts the exit code and returns the human error message on stderr. */
export function failText(r: CliResult, code: number): string {
  assert.equal(r.code, code, show(r));
  assert.match(r.stderr, /^error: /, show(r));
  assert.doesNotMatch(r.stderr, /\n\s+at /, `a refusal prints no stack trace\n${show(r)}`);
  return r.stderr;
}

export interface SandboxOptions {
  /** Every `keel()` loads the support-desk example's tools, its helpdesk beside the store. */
  readonly supportDesk?: boolean;
}

/** One fresh temporary directory holding a store (and, with `supportDesk`, the helpdesk beside it). */
export class Sandbox {
  readonly dir: string;
  private readonly supportDesk: boolean;

  constructor(name: string, o: SandboxOptions = {}) {
    this.dir = mkdtempSync(join(tmpdir(), `keel-e2e-${name}-`));
    this.supportDesk = o.supportDesk === true;
  }

  /** The store file of this sandbox, or of a named sub-store (its own directory, its own helpdesk). */
  store(sub?: string): string {
    return sub === undefined ? join(this.dir, 'keel.db') : join(this.dir, sub, 'keel.db');
  }

  helpdesk(sub?: string): string {
    return join(dirname(this.store(sub)), 'helpdesk.db');
  }

  /** `keel --store <sandbox store> ...args`, run inside the sandbox directory. */
  keel(args: readonly string[], o: CliOptions & { sub?: string } = {}): CliResult {
    if (!this.supportDesk) return runKeel(['--store', this.store(o.sub), ...args], { cwd: this.dir, ...o });
    const desk = supportDesk(this.helpdesk(o.sub));
    return runKeel(['--store', this.store(o.sub), ...desk.args, ...args], {
      cwd: this.dir,
      ...o,
      env: { ...desk.env, ...o.env },
    });
  }

  /** Writes a file under the sandbox (JSON-encoding non-strings) and returns its path. */
  write(name: string, content: unknown): string {
    const path = join(this.dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
    return path;
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export function exampleSpec(name: 'refund-under-50' | 'close-resolved-ticket'): string {
  return join(EXAMPLE, `${name}.yaml`);
}

export function exampleEvent(
  name: 'refund-30' | 'refund-500' | 'refund-missing-amount' | 'ticket-resolved',
): string {
  return join(EXAMPLE_EVENTS, `${name}.json`);
}
