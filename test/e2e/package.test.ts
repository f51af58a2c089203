/**
 * Keel as a package a user installs: `npm pack` of the sources (its `prepare` builds dist/), the tarball
 * installed into an empty folder outside the checkout, and there — plain Node, no tsx, no sources:
 * `keel demo`; `keel init` and a run through the project's tool pack (keel.tools.mjs, which imports
 * `keel/support-desk`); a TypeScript and a JavaScript tool pack (a user's own `issue_refund`
 * among them); the plan check with `keel/plan`; the library examples of README.md and docs/, taken
 * from the documents themselves, run by Node and type-checked by tsc against the declarations.
 *
 * better-sqlite3 is the one dependency with an install script (it compiles SQLite, ~100 s of CPU).
 * The tarball is installed with --ignore-scripts and the addon compiled by the checkout's own
 * `npm install` (the same pinned version, the same Node) is copied in; when the versions differ the
 * install runs the scripts and compiles it. Everything else is what a user's `npm install` gets.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
// @ts-expect-error: plain JavaScript (scripts/ is not type-checked); staleBecause(root): string | undefined
import { staleBecause as stale } from '../../scripts/build-fresh.mjs';
import { EXAMPLE, REPO } from '../helpers/keel-cli.ts';

const staleBecause = stale as (root: string) => string | undefined;

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const dir = mkdtempSync(join(tmpdir(), 'keel-package-'));
const project = join(dir, 'project');
after(() => rmSync(dir, { recursive: true, force: true }));

/** The environment of everything run in the project: nothing of the checkout's test run leaks in. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...extra };
  for (const k of Object.keys(e))
    if (k.startsWith('KEEL_') || k === 'NODE_OPTIONS' || k === 'NODE_TEST_CONTEXT' || k === 'HELPDESK_DB')
      delete e[k];
  return { ...e, ...extra };
}

function run(cmd: string, args: readonly string[], cwd: string, timeout = 60_000): Ran {
  const r = spawnSync(cmd, args, { cwd, env: env(), encoding: 'utf8', timeout });
  if (r.error) throw new Error(`${cmd} ${args.join(' ')}: ${r.error.message}`);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function ok(r: Ran, what: string): string {
  assert.equal(r.code, 0, `${what} -> exit ${r.code}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`);
  return r.stdout;
}

/** The installed `keel` command, through the bin link npm made. */
const keel = (...args: string[]) => run(join(project, 'node_modules', '.bin', 'keel'), args, project);
const keelOk = (...args: string[]) => ok(keel(...args), `keel ${args.join(' ')}`);
const keelJson = <T>(...args: string[]) => JSON.parse(keelOk('--json', ...args)) as T;

/** A script of the project, run by plain Node; prints JSON on its last line. */
function node<T>(file: string, text: string): T {
  writeFileSync(join(project, file), text);
  const out = ok(run(process.execPath, [file], project), `node ${file}`)
    .trim()
    .split('\n');
  return JSON.parse(out.at(-1) ?? 'null') as T;
}

/** The ```ts block of a document that contains `marker`. */
function docBlock(doc: string, marker: string): string {
  const blocks = [...readFileSync(join(REPO, doc), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map(
    (m) => m[1]!,
  );
  const found = blocks.filter((b) => b.includes(marker));
  assert.equal(found.length, 1, `${doc} has one ts block with ${marker}`);
  return found[0]!;
}

const REFUND_EVENT = join(EXAMPLE, 'events', 'refund-30.json');

/**
 * The example's refund workflow up the lifecycle with the installed CLI, one step at a time as a
 * user goes (docs/lifecycle.md): its tests run simulated before SHADOW (and again for the first
 * LIVE), and AUTONOMOUS, with no live runs to show, by a recorded override.
 */
function promoteRefund(keelIn: (...args: string[]) => string): void {
  keelIn('promote', 'refund-under-50', 'TESTING', '--as', 'alice');
  assert.match(keelIn('test', 'refund-under-50'), /passed: 2 of 2/);
  keelIn('promote', 'refund-under-50', 'SHADOW', '--as', 'alice');
  keelIn('promote', 'refund-under-50', 'LIVE', '--as', 'alice');
  keelIn('promote', 'refund-under-50', 'AUTONOMOUS', '--as', 'alice', '--override', '--reason', 'signed off');
}

describe('the packed package, installed outside the checkout', () => {
  let files: string[] = [];

  before(() => {
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      `${JSON.stringify({ name: 'keel-user', private: true, type: 'module' })}\n`,
    );
    // Packed from a copy of the checkout's sources (its node_modules linked): the `prepare` build
    // then writes the copy's dist/, never the checkout's, which other tests may be reading.
    const source = join(dir, 'source');
    mkdirSync(source);
    for (const f of [
      'package.json',
      'package-lock.json',
      'README.md',
      'tsconfig.json',
      'tsconfig.build.json',
    ])
      copyFileSync(join(REPO, f), join(source, f));
    for (const d of ['bin', 'scripts', 'src', 'examples', 'templates', 'web'])
      cpSync(join(REPO, d), join(source, d), { recursive: true });
    symlinkSync(join(REPO, 'node_modules'), join(source, 'node_modules'), 'dir');
    // The checkout's dist/, when fresh (`npm test` builds it first), is the build `prepare` would
    // make from these same sources: copied last (so it is newer than every copied source), it
    // saves a second full build (every `npm install` and `npm test` runs the build itself).
    if (staleBecause(REPO) === undefined) {
      cpSync(join(REPO, 'dist'), join(source, 'dist'), { recursive: true });
      const now = new Date();
      utimesSync(join(source, 'dist', '.build-stamp'), now, now);
      assert.equal(staleBecause(source), undefined, 'the copied dist/ counts as fresh');
    }
    const packed = ok(run('npm', ['pack', '--json', '--pack-destination', dir], source, 300_000), 'npm pack');
    const [info] = JSON.parse(packed) as { filename: string; files: { path: string }[] }[];
    files = info!.files.map((f) => f.path);
    const tarball = join(dir, info!.filename);
    const sqlite = join(REPO, 'node_modules', 'better-sqlite3');
    const addon = join(sqlite, 'build', 'Release', 'better_sqlite3.node');
    const reuse = existsSync(addon);
    const install = [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      tarball,
      '@types/node@20.19.43',
    ];
    ok(run('npm', reuse ? [...install, '--ignore-scripts'] : install, project, 600_000), 'npm install');
    if (reuse) {
      const version = (p: string) =>
        (JSON.parse(readFileSync(join(p, 'package.json'), 'utf8')) as { version: string }).version;
      const installed = join(project, 'node_modules', 'better-sqlite3');
      if (version(installed) === version(sqlite)) {
        mkdirSync(join(installed, 'build', 'Release'), { recursive: true });
        copyFileSync(addon, join(installed, 'build', 'Release', 'better_sqlite3.node'));
      } else {
        ok(run('npm', ['rebuild', 'better-sqlite3'], project, 600_000), 'npm rebuild better-sqlite3');
      }
    }
  });

  test('the tarball holds the built code, its declarations and data, and no sources, tests or benches', () => {
    for (const f of [
      'package.json',
      'README.md',
      'bin/keel.js',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/src/plan/define-workflow.d.ts',
      'dist/src/cli/pack-hooks.js',
      'dist/src/openwop/fixtures/conformance-noop.json',
      'dist/examples/support-desk/index.js',
      'dist/examples/support-desk/refund-under-50.yaml',
      'dist/examples/support-desk/events/refund-30.json',
      'dist/templates/support-refunds/template.json',
      'dist/templates/support-refunds/keel.tools.mjs',
      'dist/templates/support-refunds/workflows/refund-request.yaml',
      'dist/templates/support-refunds/events/refund-30.json',
      'dist/templates/support-refunds/README.md',
      'dist/templates/expense-report/policy.yaml',
      'dist/web/index.html',
    ])
      assert.ok(files.includes(f), `the tarball lacks ${f}`);
    assert.ok(
      files.some((f) => /^dist\/web\/assets\/.+\.js$/.test(f)),
      'the tarball lacks the console bundle',
    );
    const stray = files.filter(
      (f) =>
        /\.test\.|test-helpers|corpus\/|src\/testing\//.test(f) ||
        /^(src|test|bench|scripts|examples)\//.test(f) ||
        (f.endsWith('.ts') && !f.endsWith('.d.ts')),
    );
    assert.deepEqual(stray, []);
    // Keel's development tools are not installed with it: nothing here compiles TypeScript but Keel itself.
    const resolveFromProject = createRequire(join(project, 'package.json')).resolve;
    assert.throws(() => resolveFromProject('tsx'), /Cannot find module/);
  });

  test('keel serve serves the built console at /console/, with its bundle', async () => {
    const child = spawn(
      join(project, 'node_modules', '.bin', 'keel'),
      ['--json', 'serve', '--port', '0', '--create'],
      {
        cwd: project,
        env: env(),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`keel serve did not start: ${out}`)), 30_000);
        child.stdout.on('data', (d) => {
          out += d;
          try {
            const info = JSON.parse(out) as { url: string };
            clearTimeout(timer);
            resolve(info.url);
          } catch {
            // not a whole document yet
          }
        });
        child.once('exit', (code) => reject(new Error(`keel serve exited ${code}`)));
      });
      const page = await fetch(`${url}/console/`);
      assert.equal(page.status, 200);
      const html = await page.text();
      const bundle = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
      assert.ok(bundle, html);
      const js = await fetch(`${url}/console/${bundle}`);
      assert.equal(js.status, 200);
      assert.match(js.headers.get('content-type') ?? '', /javascript/);
      assert.match(await js.text(), /Keel console/);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
      rmSync(join(project, '.keel'), { recursive: true, force: true });
    }
  });

  test('keel demo runs every check', () => {
    const out = keelOk('demo');
    assert.match(out, /demo passed: (\d+)\/\1 checks/);
    assert.match(out, /Refused issue_refund: amount_usd 500 exceeds the spend cap of 50/);
  });

  test('keel init: the project tool pack (keel/support-desk) runs the example workflows', () => {
    const init = keelJson<{ written: string[] }>('init');
    assert.ok(init.written.includes('keel.tools.mjs'), JSON.stringify(init));
    keelOk('publish', 'workflows/refund-under-50.yaml', '--as', 'alice');
    promoteRefund(keelOk);
    const emitted = keelJson<{ runs: { status: string }[] }>('emit', 'events/refund-30.json');
    assert.equal(emitted.runs[0]?.status, 'completed', JSON.stringify(emitted));
    assert.ok(existsSync(join(project, '.keel', 'helpdesk.db')), "the pack's helpdesk is in ./.keel");
    rmSync(join(project, 'keel.tools.mjs'));
    rmSync(join(project, '.keel'), { recursive: true });
  });

  test('keel init in a folder where Keel is not installed (a linked keel): its pack gets the Keel running it', () => {
    const bare = join(dir, 'bare');
    mkdirSync(bare);
    const bin = join(project, 'node_modules', '.bin', 'keel');
    const here = (...args: string[]) => ok(run(bin, args, bare), `keel ${args.join(' ')} in a bare folder`);
    here('init');
    assert.equal(existsSync(join(bare, 'node_modules')), false, 'no Keel beside the pack');
    here('publish', 'workflows/refund-under-50.yaml', '--as', 'alice');
    promoteRefund(here);
    const emitted = JSON.parse(here('--json', 'emit', 'events/refund-30.json')) as {
      runs: { status: string }[];
    };
    assert.equal(emitted.runs[0]?.status, 'completed', JSON.stringify(emitted));
  });

  test('keel init --template: every template ships; one runs from the installed package in a bare folder', () => {
    const shipped = new Set(files.filter((f) => f.startsWith('dist/templates/')).map((f) => f.split('/')[2]));
    const listed = keelJson<{ templates: { name: string }[] }>('templates', 'ls').templates.map(
      (t) => t.name,
    );
    assert.ok(listed.length >= 8, JSON.stringify(listed));
    assert.deepEqual([...shipped].sort(), listed);
    const bare = join(dir, 'bare-template');
    mkdirSync(bare);
    const here = (...args: string[]) =>
      ok(run(join(project, 'node_modules', '.bin', 'keel'), args, bare), `keel ${args.join(' ')} in ${bare}`);
    here('init', '--template', 'oncall-escalation');
    here('publish', 'workflows/escalate-critical-alert.yaml', '--as', 'alice');
    here('promote', 'escalate-critical-alert', 'TESTING', '--as', 'alice');
    assert.match(here('test', 'escalate-critical-alert'), /passed: 3 of 3/);
    here('promote', 'escalate-critical-alert', 'SHADOW', '--as', 'alice');
    here('promote', 'escalate-critical-alert', 'LIVE', '--as', 'alice');
    const emitted = JSON.parse(here('--json', 'emit', 'events/alert-critical.json')) as {
      runs: { status: string }[];
    };
    assert.deepEqual(
      emitted.runs.map((r) => r.status),
      ['waiting'], // the primary was paged; it waits up to 15 minutes for an acknowledgement
    );
    assert.equal(
      readFileSync(join(bare, '.keel', 'outbox.jsonl'), 'utf8')
        .trim()
        .split('\n').length,
      2,
    );
  });

  test('a TypeScript tool pack and a JavaScript one load with --tools; a user may name a tool issue_refund', () => {
    // Each handler leaves a file behind: the witness that the pack's own code ran.
    writeFileSync(
      join(project, 'tools.ts'),
      `import { writeFileSync } from 'node:fs';
import { type ToolDefinition, withDeltas } from 'keel';

interface Refund {
  ticket_id: string;
  amount_usd: number;
}

const refund: ToolDefinition = {
  name: 'issue_refund',
  description: 'Our own refund tool.',
  args: {
    type: 'object',
    required: ['ticket_id', 'amount_usd'],
    properties: { ticket_id: { type: 'string' }, amount_usd: { type: 'number' } },
    additionalProperties: false,
  },
  destructive: false,
  effect: 'write',
  idempotent: true,
  scopes: ['payments.refund'],
  handler: (args) => {
    const a = args as unknown as Refund;
    writeFileSync('typescript-pack.ran', String(a.amount_usd));
    return withDeltas({ refunded: a.amount_usd }, []);
  },
};

export default [refund];
`,
    );
    writeFileSync(
      join(project, 'tools.js'),
      `import { writeFileSync } from 'node:fs';

export default () => [
  {
    name: 'issue_refund',
    description: 'Our own refund tool, in JavaScript.',
    args: { type: 'object', required: ['ticket_id', 'amount_usd'], properties: { ticket_id: { type: 'string' }, amount_usd: { type: 'number' } } },
    destructive: false,
    effect: 'write',
    idempotent: true,
    scopes: ['payments.refund'],
    handler: (args) => {
      writeFileSync('javascript-pack.ran', String(args.amount_usd));
      return { refunded: args.amount_usd };
    },
  },
];
`,
    );
    writeFileSync(
      join(project, 'refund-only.yaml'),
      `id: refund-only
version: 1
status: DRAFT
triggers: [{ event: refund.requested }]
steps:
  - name: refund
    tool: issue_refund
    args: { ticket_id: "{{event.subject}}", amount_usd: "{{event.payload.refund_amount}}" }
limits: { maxSteps: 1, maxCostUsd: 0 }
`,
    );
    for (const [pack, witness] of [
      ['./tools.ts', 'typescript-pack.ran'],
      ['./tools.js', 'javascript-pack.ran'],
    ] as const) {
      const store = `--store=${pack.slice(2)}.db`;
      keelOk(store, '--tools', pack, 'publish', 'refund-only.yaml', '--as', 'alice');
      const ran = keelJson<{ status: string }>(
        store,
        '--tools',
        pack,
        'run',
        'refund-only',
        REFUND_EVENT,
        '--live',
        '--yes',
      );
      assert.equal(ran.status, 'completed', `${pack}: ${JSON.stringify(ran)}`);
      assert.equal(readFileSync(join(project, witness), 'utf8'), '30', `${pack} ran its own handler`);
    }
  });

  test('keel check and keel validate read plan modules that import keel/plan', () => {
    writeFileSync(join(project, 'reply.plan.ts'), docBlock('README.md', "from 'keel/plan'"));
    assert.equal(keelOk('check', 'reply.plan.ts'), 'ok: 1 plan module, no findings\n');
    writeFileSync(
      join(project, 'clock.plan.ts'),
      `${docBlock('README.md', "from 'keel/plan'")}\nconst t = Date.now();\n`,
    );
    const found = keel('check', 'clock.plan.ts');
    assert.equal(found.code, 7, found.stderr + found.stdout);
    assert.match(found.stdout + found.stderr, /Date\.now is not allowed in a plan module/);
    writeFileSync(
      join(project, 'refund.plan.ts'),
      `import { defineWorkflow, type StepSpec } from 'keel/plan';

const refund: StepSpec = {
  name: 'refund',
  tool: 'issue_refund',
  args: { ticket_id: '{{event.subject}}', amount_usd: '{{event.payload.refund_amount}}' },
};

export default defineWorkflow({
  id: 'refund-plan',
  version: 1,
  status: 'DRAFT',
  triggers: [{ event: 'refund.requested' }],
  steps: [refund],
  limits: { maxSteps: 1, maxCostUsd: 0 },
});
`,
    );
    const valid = keelJson<{ id: string; specHash: string }>(
      '--tools',
      './tools.js',
      'validate',
      'refund.plan.ts',
    );
    assert.equal(valid.id, 'refund-plan');
    assert.match(valid.specHash, /^sha256:[0-9a-f]{64}$/);
  });

  test("the README's and docs' library examples run in plain Node against the package", () => {
    // README.md, "As a library": its tools placeholder filled with the support desk's tools.
    const readme = docBlock('README.md', "import { createKeel } from 'keel';").replace(
      '/* ToolDefinition[] */',
      "...supportDeskTools(new Helpdesk('readme-helpdesk.db'))",
    );
    const history = node<{ kind: string; text: string }[]>(
      'readme-example.mjs',
      `import { readFileSync } from 'node:fs';
import { Helpdesk, supportDeskTools } from 'keel/support-desk';
const specText = readFileSync(${JSON.stringify(join(EXAMPLE, 'refund-under-50.yaml'))}, 'utf8');
const event = JSON.parse(readFileSync(${JSON.stringify(REFUND_EVENT)}, 'utf8'));
const log = console.log;
let printed;
console.log = (v) => { printed = v; };
${readme}
log(JSON.stringify(printed));
`,
    );
    assert.equal(history.at(-1)?.kind, 'run.finished');
    assert.match(history.map((h) => h.text).join('\n'), /Allowed issue_refund/);

    // docs/governance.md, "Runs under a policy and a writ", with the keys and writ made by the CLI.
    keelOk('--tenant', 'acme', 'writs', 'keygen', '--out', 'keys/');
    writeFileSync(
      join(project, 'root-request.json'),
      JSON.stringify({
        id: 'desk-1',
        tenant: 'acme',
        subject: 'refund-desk',
        scopes: ['draft_reply', 'issue_refund'],
        budget: { cents: 10_000, steps: 10, calls: 10 }, // room for the example's two runs: a writ's budget is shared
        window: { notBefore: '2026-01-01T00:00:00Z', notAfter: '2100-01-01T00:00:00Z' },
        effectCeiling: { max: 'external', destructive: true },
        delegation: { maxDepth: 1, maySubdivide: true },
      }),
    );
    writeFileSync(join(project, 'child-request.json'), JSON.stringify({ id: 'run-1', subject: 'one-run' }));
    keelOk('writs', 'issue', 'root-request.json', '--key', 'keys/acme.key.pem', '--out', 'root.writ.json');
    keelOk(
      'writs',
      'attenuate',
      'root.writ.json',
      'child-request.json',
      '--key',
      'keys/acme.key.pem',
      '--out',
      'child.writ.json',
    );
    writeFileSync(
      join(project, 'policy.yaml'),
      'default: allow\nrules:\n  - id: big-refunds\n    match: { tool: issue_refund }\n    when: args.amount_usd > 20\n    outcome: require_approval\n',
    );
    const governed = node<{ runs: { status: string }[]; started: { status: string } }>(
      'governance-example.mjs',
      `import { readFileSync as read } from 'node:fs';
import { createKeel as open } from 'keel';
import { Helpdesk, supportDeskTools } from 'keel/support-desk';
const tools = supportDeskTools(new Helpdesk('governance-helpdesk.db'));
const event = JSON.parse(read(${JSON.stringify(REFUND_EVENT)}, 'utf8'));
const setup = open({ store: 'keel.db', tools });
await setup.workflows.publish('acme', read(${JSON.stringify(join(EXAMPLE, 'refund-under-50.yaml'))}, 'utf8'), 'refund.yaml', 'alice');
for (const to of ['TESTING', 'SHADOW', 'LIVE']) {
  if (to === 'SHADOW' && !(await setup.lifecycle.test('acme', 'refund-under-50')).passed) throw new Error('tests failed');
  await setup.workflows.promote('acme', 'refund-under-50', to, 'alice');
}
await setup.workflows.promote('acme', 'refund-under-50', 'AUTONOMOUS', 'alice', undefined, { override: 'signed off' });
await setup.close();
${docBlock('docs/governance.md', 'parsePolicy(')}
console.log(JSON.stringify({ runs, started }));
`,
    );
    // The policy holds the $30 refund for a person; the writ was accepted (a refused one creates no run).
    assert.equal(governed.runs[0]?.status, 'waiting_approval', JSON.stringify(governed));
    assert.equal(governed.started.status, 'waiting_approval', 'runs.start, the writ given as the chain');

    // docs/planner.md, "API": a recorded model provider fills a model slot.
    const planned = node<{ status: string; drawn: unknown[] }>(
      'planner-example.mjs',
      `import { Helpdesk, supportDeskTools } from 'keel/support-desk';
const tools = supportDeskTools(new Helpdesk('planner-helpdesk.db'));
${docBlock('docs/planner.md', 'recordedModelProvider([')}
const spec = {
  id: 'model-reply', version: 1, status: 'DRAFT', triggers: [{ event: 'ticket.opened' }],
  steps: [{ name: 'reply', tool: 'draft_reply', args: { ticket_id: '{{event.subject}}',
    body: { $model: { prompt: 'Write a short reply to: {{event.payload.note}}', schema: { type: 'string', minLength: 1 } } } } }],
  limits: { maxSteps: 1, maxCostUsd: 0 },
  tests: [{ name: 'replies', event: { type: 'ticket.opened', subject: 'T-1001', payload: { note: 'hello?' } },
    expect: { status: 'completed', steps: ['reply'] } }],
};
await keel.workflows.publishObject('acme', spec, 'alice');
for (const to of ['TESTING', 'SHADOW', 'LIVE']) {
  if (to === 'SHADOW' && !(await keel.lifecycle.test('acme', 'model-reply')).passed) throw new Error('tests failed');
  await keel.workflows.promote('acme', 'model-reply', to, 'alice');
}
await keel.workflows.promote('acme', 'model-reply', 'AUTONOMOUS', 'alice', undefined, { override: 'signed off' });
const { runs } = await keel.events.emit('acme', { id: 'e1', type: 'ticket.opened', subject: 'T-1001', time: '2026-11-30T09:00:00Z', payload: { note: 'where is my parcel?' } });
const entries = await keel.runs.entries('acme', runs[0].runId);
console.log(JSON.stringify({ status: runs[0].status, drawn: entries.filter((e) => e.kind === 'source.drawn').map((e) => e.payload.value) }));
await keel.close();
`,
    );
    assert.equal(planned.status, 'completed', JSON.stringify(planned));
    assert.deepEqual(planned.drawn, ['Sorry! It ships today.']);
  });

  test("the library examples type-check against the package's declarations", () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        files: ['typed-example.ts', 'tools.ts', 'reply.plan.ts'],
      }),
    );
    writeFileSync(
      join(project, 'typed-example.ts'),
      `import { readFileSync } from 'node:fs';
import { type Keel, type Policy, parsePolicy, type ToolDefinition } from 'keel';
import { defineWorkflow } from 'keel/plan';
const specText = '';
const event: unknown = {};
${docBlock('README.md', "import { createKeel } from 'keel';")}
const policy: Policy = parsePolicy(readFileSync('policy.yaml', 'utf8'), 'policy.yaml');
const typed: Keel = keel;
const tool: ToolDefinition | undefined = undefined;
// The declarations are real types, not \`any\`: each line below must be refused.
// @ts-expect-error publish takes the spec text, not a number
await typed.workflows.publish('acme', 42, 'x.yaml', 'alice');
// @ts-expect-error a policy is not a string
const notPolicy: string = policy;
// @ts-expect-error a spec needs its limits
defineWorkflow({ id: 'x', version: 1, status: 'DRAFT', triggers: [], steps: [] });
export { notPolicy, tool };
`,
    );
    const tsc = createRequire(join(project, 'package.json')).resolve('typescript/bin/tsc');
    ok(run(process.execPath, [tsc, '-p', 'tsconfig.json'], project, 120_000), 'tsc -p tsconfig.json');
  });
});
