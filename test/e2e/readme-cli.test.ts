/**
 * The README's CLI walk-through runs as written: the first shell block of "The CLI", line by line,
 * in an empty directory, through the real `keel` process (`npx keel` is the sources' command here).
 * `<run>` is the run id printed by the `emit` above it, as the README says. Every line must exit 0;
 * it once failed on its third line (`keel check workflows/` right after `keel init`). The tools are
 * the support desk's pack from the sources (KEEL_TOOLS): the keel.tools.mjs `keel init` writes
 * imports `keel/support-desk`, which resolves where Keel is installed (the package test runs that).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { REPO, runKeel, Sandbox, SUPPORT_DESK_PACK, show } from '../helpers/keel-cli.ts';

const sandbox = new Sandbox('readme');
after(() => sandbox.remove());

/** The commands of the first ```sh block after "### The CLI", comments dropped, `&&` split. */
function walkThrough(): string[][] {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### The CLI'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, 'README.md has a shell block under "The CLI"');
  return block
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l !== '')
    .flatMap((l) => l.split('&&').map((c) => c.trim()))
    .map((c) => {
      const words = c.match(/"[^"]*"|'[^']*'|\S+/g) ?? [];
      assert.deepEqual(words.slice(0, 2), ['npx', 'keel'], `a README command runs keel: ${c}`);
      return words.slice(2).map((w) => w.replace(/^(["'])(.*)\1$/, '$2'));
    });
}

test("the README's CLI block runs line by line in an empty directory", () => {
  const commands = walkThrough();
  assert.ok(commands.length >= 15, `${commands.length} commands`);
  let run: string | undefined;
  for (const args of commands) {
    const filled = args.map((a) => {
      if (a !== '<run>') return a;
      assert.ok(run, `keel ${args.join(' ')}: no emit before it printed a run`);
      return run;
    });
    const r = runKeel(filled, {
      cwd: sandbox.dir,
      env: { KEEL_TOOLS: SUPPORT_DESK_PACK, HELPDESK_DB: join(sandbox.dir, 'helpdesk.db') },
    });
    assert.equal(r.code, 0, show(r));
    assert.doesNotMatch(r.stderr, /^error/m, show(r));
    if (args[0] === 'emit') run = /sha256:[0-9a-f]{64}/.exec(r.stdout)?.[0];
    if (args[0] === 'check') assert.match(r.stdout, /^ok: 1 plan module, no findings$/m, show(r));
    if (args[0] === 'approve') assert.match(r.stdout, /approved by dana; run \S+ is completed/, show(r));
  }
});
