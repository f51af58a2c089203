/**
 * Every shell block of README.md and docs/ marked `<!-- runnable -->` (on the line before its
 * fence) runs as written: each in an empty directory of its own, as one bash script with `set -euo
 * pipefail`, in a newcomer's shell (`keel` linked, nothing of this run's Keel settings), and must
 * exit 0. A block that starts a server reads its port from PORT (`${PORT:-8787}`), given a free
 * one here; the block's process group is killed afterwards, whatever it left running.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { REPO, Sandbox } from '../helpers/keel-cli.ts';
import { linkedPrefix, newcomerEnv } from '../helpers/newcomer.ts';

const sandbox = new Sandbox('docs-runnable');
after(() => sandbox.remove());

interface Block {
  readonly doc: string;
  readonly line: number;
  readonly script: string;
}

/** The marked blocks of one document. */
function runnableBlocks(doc: string): Block[] {
  const lines = readFileSync(join(REPO, doc), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '<!-- runnable -->') continue;
    assert.match(
      lines[i + 1] ?? '',
      /^```(sh|bash)$/,
      `${doc}:${i + 1}: a runnable mark is followed by a sh block`,
    );
    const end = lines.indexOf('```', i + 2);
    assert.ok(end > i, `${doc}:${i + 1}: the block ends`);
    blocks.push({ doc, line: i + 2, script: lines.slice(i + 2, end).join('\n') });
  }
  return blocks;
}

const DOCS = ['README.md', ...readdirSync(join(REPO, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith('.md'),
);
const BLOCKS = DOCS.flatMap(runnableBlocks);

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

/** Runs a script in `cwd` in a process group of its own; kills the group when it ends or times out. */
async function bash(script: string, cwd: string, env: NodeJS.ProcessEnv, ms: number) {
  const child = spawn('bash', ['-c', `set -euo pipefail\n${script}`], { cwd, env, detached: true });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), ms);
  const code = await new Promise<number | null>((r) => child.once('close', r));
  clearTimeout(timer);
  try {
    process.kill(-child.pid!, 'SIGKILL'); // anything the block left behind (a server it started)
  } catch {
    // the group is gone already
  }
  return { code, out };
}

test('the documents hold runnable blocks', () => {
  assert.ok(BLOCKS.length >= 2, BLOCKS.map((b) => `${b.doc}:${b.line}`).join(', '));
});

for (const block of BLOCKS) {
  test(`${block.doc}:${block.line} runs as written`, async () => {
    const dir = join(sandbox.dir, `${block.doc.replace(/\W/g, '-')}-${block.line}`);
    mkdirSync(dir, { recursive: true });
    const env = newcomerEnv(linkedPrefix(sandbox.dir), { PORT: String(await freePort()) });
    const r = await bash(block.script, dir, env, 180_000);
    assert.equal(r.code, 0, `${block.doc}:${block.line} -> exit ${r.code}\n${r.out}`);
  });
}
