/**
 * Runs OpenWOP's published sample clients, unchanged, against a fresh `keel serve`.
 *
 *   npm run openwop:samples -- <dir>     (or OPENWOP_EXAMPLES_DIR=<dir>)
 *
 * <dir> is a copy of the public repository openwop/openwop-examples (or its `examples/` folder).
 * Each sample runs with `npm test` (`npm start` where it has no test) under a 2-minute timeout; it passes only when it exits 0 *and*
 * prints its success line (a sample that skips also exits 0). The server runs on a throwaway
 * SQLite store on loopback and is stopped by its PID. Exit code: 0 when all six pass.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KEEL_COMMAND } from '../src/testing/keel-command.ts';

/**
 * Each sample, the line it prints only when it really exercised the host and passed, and the npm
 * script that runs it (`test`, or `start` for a sample that has no test script).
 */
const SAMPLES: readonly { name: string; success: RegExp; script?: string }[] = [
  { name: 'tiny-workflow', success: /✓ Run completed successfully/ },
  { name: 'streaming-client', success: /✓ Stream closed after \d+ events/ },
  { name: 'idempotent-runs', success: /✓ Body conflict correctly rejected/ },
  { name: 'approval-workflow', success: /✓ Approval workflow round-trip complete/ },
  { name: 'branch-fork', success: /✓ Branch fork lifecycle complete/ },
  { name: 'branching-workflow', success: /✓ branching-workflow PASSED/, script: 'start' },
];

function examplesDir(): string {
  const given = process.argv[2] ?? process.env.OPENWOP_EXAMPLES_DIR;
  if (!given) {
    console.error(
      'usage: npm run openwop:samples -- <copy of openwop/openwop-examples> (or OPENWOP_EXAMPLES_DIR)',
    );
    process.exit(2);
  }
  const dir = existsSync(join(given, 'examples')) ? join(given, 'examples') : given;
  const missing = SAMPLES.filter((s) => !existsSync(join(dir, s.name)));
  if (missing.length > 0) {
    console.error(`${dir}: missing ${missing.map((s) => s.name).join(', ')}`);
    process.exit(2);
  }
  return dir;
}

async function startServer(store: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [...KEEL_COMMAND, '--store', store, '--json', 'serve', '--port', '0'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  const url = await new Promise<string>((res, rej) => {
    child.stdout!.on('data', (d) => {
      out += d;
      try {
        res((JSON.parse(out) as { url: string }).url);
      } catch {
        // not a whole document yet
      }
    });
    child.once('exit', (code) => rej(new Error(`keel serve exited ${code}`)));
  });
  return { url, child };
}

async function main(): Promise<void> {
  const dir = examplesDir();
  const tmp = mkdtempSync(join(tmpdir(), 'keel-openwop-samples-'));
  const store = join(tmp, 'keel.db');
  const made = spawnSync(
    process.execPath,
    [...KEEL_COMMAND, '--store', store, '--json', 'keys', 'create', '--tenant', 'samples'],
    {
      encoding: 'utf8',
    },
  );
  if (made.status !== 0) throw new Error(`keel keys create failed: ${made.stderr}`);
  const key = (JSON.parse(made.stdout) as { key: string }).key;
  const { url, child } = await startServer(store);
  console.log(`keel serve on ${url} (store in a temporary directory)`);
  let failed = 0;
  try {
    for (const s of SAMPLES) {
      const started = Date.now();
      const r = spawnSync('npm', [s.script ?? 'test', '--silent'], {
        cwd: join(dir, s.name),
        env: { ...process.env, OPENWOP_BASE_URL: url, OPENWOP_API_KEY: key },
        encoding: 'utf8',
        timeout: 120_000,
      });
      const output = `${r.stdout}${r.stderr}`;
      const pass = r.status === 0 && s.success.test(output);
      if (!pass) failed++;
      console.log(
        `${pass ? 'PASS' : 'FAIL'} ${s.name} (exit ${r.status ?? r.signal}, ${Date.now() - started} ms)`,
      );
      if (!pass || process.env.VERBOSE) console.log(output.replace(/^/gm, '    '));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(tmp, { recursive: true, force: true });
  }
  console.log(
    failed === 0 ? `all ${SAMPLES.length} samples passed` : `${failed} of ${SAMPLES.length} samples failed`,
  );
  process.exit(failed === 0 ? 0 : 1);
}

await main();
