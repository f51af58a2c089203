/**
 * The README's CLI walk-through runs as written: the first shell block of "The CLI", line by line,
 * in an empty directory, exactly as a newcomer types it — `npx keel …`, after `npm link` in the
 * checkout. The link is made in a scratch npm prefix (NPM_CONFIG_PREFIX) whose `keel` is the
 * sources' command, so `npx` finds it the way it finds a linked `keel`, and nothing else is given:
 * no KEEL_TOOLS, no HELPDESK_DB. The `keel.tools.mjs` that `keel init` writes imports
 * `keel/support-desk` with no Keel installed beside it, and gets the Keel running it. `<run>` is the
 * run id printed by the `emit` above it. Every line must exit 0; it once failed on its third line
 * (`keel check workflows/` right after `keel init`), and then on its second (the pack's import).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { REPO, Sandbox } from '../helpers/keel-cli.ts';
import { linkedPrefix, newcomerEnv } from '../helpers/newcomer.ts';

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

test("the README's CLI block runs line by line in an empty directory, through npx", () => {
  const commands = walkThrough();
  const project = join(sandbox.dir, 'project');
  mkdirSync(project);
  const env = newcomerEnv(linkedPrefix(sandbox.dir));
  assert.ok(commands.length >= 15, `${commands.length} commands`);
  let run: string | undefined;
  for (const args of commands) {
    const filled = args.map((a) => {
      if (a !== '<run>') return a;
      assert.ok(run, `keel ${args.join(' ')}: no emit before it printed a run`);
      return run;
    });
    const p = spawnSync('npx', ['--offline', 'keel', ...filled], {
      cwd: project,
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    const r = { code: p.status, stdout: p.stdout, stderr: p.stderr };
    const show = () =>
      `npx keel ${filled.join(' ')} -> exit ${r.code}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`;
    assert.equal(r.code, 0, show());
    assert.doesNotMatch(r.stderr, /^error/m, show());
    if (args[0] === 'emit') run = /sha256:[0-9a-f]{64}/.exec(r.stdout)?.[0];
    if (args[0] === 'check') assert.match(r.stdout, /^ok: 1 plan module, no findings$/m, show());
    if (args[0] === 'approve') assert.match(r.stdout, /approved by dana; run \S+ is completed/, show());
  }
  // The support desk's helpdesk is the project's own, where the README says it is.
  assert.ok(existsSync(join(project, '.keel', 'helpdesk.db')), 'the helpdesk is in ./.keel');
});
