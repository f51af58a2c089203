/**
 * A person's typical mistakes, command by command: each ends in one line on stderr,
 * `error: <message> [<code>]`, with the exit code of the one table (src/cli/exit-codes.ts), nothing
 * on stdout and never a stack trace; with --json, one JSON error object. Most cases drive the CLI's
 * `main` in a worker thread on real store files (a process each would take minutes on a loaded
 * machine); the last group runs the real `keel` process for the mistakes the issue reported.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Helpdesk } from '../../examples/support-desk/helpdesk.ts';
import { supportDeskTools } from '../../examples/support-desk/tools.ts';
import { createKeel } from '../../src/app/index.ts';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { setStatus } from '../../src/testing/index.ts';
import { CliWorker, type Ran } from '../helpers/cli-in-process.ts';
import { exampleEvent, exampleSpec, runKeel, Sandbox, SUPPORT_DESK_PACK, show } from '../helpers/keel-cli.ts';

const sandbox = new Sandbox('cli-mistakes');
after(() => sandbox.remove());
const store = sandbox.store();
let completedRun = '';
let waitingRun = '';

/** Every command gets the support desk's tools (the pack, and its helpdesk beside the store). */
const cli = new CliWorker({ HELPDESK_DB: sandbox.helpdesk() });
after(() => cli.stop());
type Outcome = Ran;
const keelHere = (args: readonly string[]) => cli.run(args);
const describeOutcome = (args: readonly string[], r: Outcome) =>
  `keel ${args.join(' ')} -> exit ${r.code}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`;

/** The mistake's report: exit code, one line `error: ... [code]`, nothing on stdout, no stack. */
function assertMistake(args: readonly string[], r: Outcome, code: string, exit: number, says?: RegExp) {
  const what = describeOutcome(args, r);
  assert.equal(r.code, exit, what);
  assert.equal(r.stdout, '', `a refused command prints nothing on stdout\n${what}`);
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `one line on stderr\n${what}`);
  assert.match(lines[0]!, new RegExp(`^error: .+ \\[${code}\\]$`), what);
  assert.doesNotMatch(r.stderr, /\n\s+at |KEEL_DEBUG/, `no stack trace\n${what}`);
  if (says) assert.match(lines[0]!, says, what);
}

before(async () => {
  // A store with a completed run and one waiting for approval, built through the library.
  const desk = new Helpdesk(sandbox.helpdesk());
  const keel = createKeel({ store, tools: supportDeskTools(desk) });
  for (const [name, status] of [
    ['refund-under-50', 'AUTONOMOUS'],
    ['close-resolved-ticket', 'LIVE'],
  ] as const) {
    const file = exampleSpec(name);
    const { record } = await keel.workflows.publish('default', readFileSync(file, 'utf8'), file, 'dana');
    // Not a test of promotion: put at the status directly (a recorded fixture, past the gates).
    await setStatus(keel, 'default', name, record.version, status, 'dana');
  }
  const emit = async (e: Parameters<typeof exampleEvent>[0]) =>
    (await keel.events.emit('default', JSON.parse(readFileSync(exampleEvent(e), 'utf8')))).runs[0]!;
  completedRun = (await emit('refund-30')).runId;
  const waiting = await emit('ticket-resolved');
  assert.equal(waiting.status, 'waiting_approval');
  waitingRun = waiting.runId;
  await keel.close();
  desk.shutdown();
  sandbox.write('bad-spec.yaml', 'id: x\nsteps: [\n');
  sandbox.write('not-json.json', '{"id": ');
  sandbox.write('no-tools.mjs', 'export default [];\n');
  sandbox.write('spec.yaml', readFileSync(exampleSpec('refund-under-50'), 'utf8'));
});

const missingStore = () => join(sandbox.dir, 'typo', 'dir', 'keel.db');
const S = () => ['--store', store, '--tools', SUPPORT_DESK_PACK];

/** [what, args, code, exit, message] — args are a function so they can name the fixtures. */
const MISTAKES: readonly [string, () => string[], string, number, RegExp?][] = [
  ['an unknown command', () => ['frobnicate'], 'usage', EXIT.usage, /unknown command 'frobnicate'/],
  [
    'an unknown option',
    () => [...S(), 'runs', 'ls', '--versoin'],
    'usage',
    EXIT.usage,
    /keel runs ls --help/,
  ],
  ['a missing argument', () => [...S(), 'history'], 'usage', EXIT.usage, /missing required argument 'run'/],
  ['a bad choice', () => [...S(), 'runs', 'ls', '--status', 'done'], 'usage', EXIT.usage, /--status/],
  ['an empty --store', () => ['--store', '', 'runs', 'ls'], 'usage', EXIT.usage, /--store/],
  ['a URL of another database', () => ['--store', 'mysql://db/x', 'runs', 'ls'], 'usage', EXIT.usage],
  ['a missing tool pack', () => [...S(), '--tools', 'nope.ts', 'runs', 'ls'], 'usage', EXIT.usage, /--tools/],
  ['a missing policy file', () => [...S(), '--policy', 'nope.yaml', 'runs', 'ls'], 'usage', EXIT.usage],
  // The store
  [
    'runs ls on a mistyped --store',
    () => ['--store', missingStore(), 'runs', 'ls'],
    'store_not_found',
    EXIT.storeUnavailable,
    /no store at .*typo/,
  ],
  [
    'verify on a mistyped --store',
    () => ['--store', missingStore(), 'verify', 'sha256:x'],
    'store_not_found',
    EXIT.storeUnavailable,
  ],
  [
    'emit on a mistyped --store',
    () => ['--store', missingStore(), 'emit', exampleEvent('refund-30')],
    'store_not_found',
    EXIT.storeUnavailable,
  ],
  [
    'serve on a missing store, without --create',
    () => ['--store', missingStore(), 'serve', '--port', '0'],
    'store_not_found',
    EXIT.storeUnavailable,
  ],
  [
    'status on a mistyped --store',
    () => ['--store', missingStore(), 'status'],
    'store_not_found',
    EXIT.storeUnavailable,
  ],
  [
    'a store that is a directory',
    () => ['--store', sandbox.dir, 'runs', 'ls'],
    'store_unavailable',
    EXIT.storeUnavailable,
    /is not a file/,
  ],
  // Specs and plan modules
  [
    'check on a YAML spec',
    () => ['check', join(sandbox.dir, 'spec.yaml')],
    'usage',
    EXIT.usage,
    /not a plan module.*keel validate/,
  ],
  ['check on a missing path', () => ['check', 'nope.plan.ts'], 'usage', EXIT.usage],
  ['validate a missing file', () => ['validate', 'nope.yaml'], 'usage', EXIT.usage, /no such file/],
  [
    'validate a spec that is not YAML',
    () => ['validate', join(sandbox.dir, 'bad-spec.yaml')],
    'spec_invalid',
    EXIT.usage,
  ],
  ['publish a missing file', () => [...S(), 'publish', 'nope.yaml'], 'usage', EXIT.usage],
  [
    'promote to a status that does not exist',
    () => [...S(), 'promote', 'refund-under-50', 'GOLD'],
    'usage',
    EXIT.usage,
  ],
  [
    'promote a version that is not a number',
    () => [...S(), 'promote', 'refund-under-50', 'LIVE', '--version', 'one'],
    'usage',
    EXIT.usage,
    /--version/,
  ],
  [
    'promote without the evidence its gate asks for',
    () => [...S(), 'promote', 'close-resolved-ticket', 'AUTONOMOUS'],
    'promotion_gate_unmet',
    EXIT.evidenceUnmet,
    /gate to AUTONOMOUS is not met: at least 20 live runs .*--override --reason/,
  ],
  [
    'override a gate without saying why',
    () => [...S(), 'promote', 'close-resolved-ticket', 'AUTONOMOUS', '--override'],
    'usage',
    EXIT.usage,
    /--override: needs --reason/,
  ],
  [
    'promote a workflow that does not exist',
    () => [...S(), 'promote', 'nope', 'LIVE'],
    'not_found',
    EXIT.notFound,
  ],
  // Events and runs
  ['emit a missing event file', () => [...S(), 'emit', 'nope.json'], 'usage', EXIT.usage],
  [
    'emit an event that is not JSON',
    () => [...S(), 'emit', join(sandbox.dir, 'not-json.json')],
    'event_invalid',
    EXIT.usage,
  ],
  [
    'run a workflow that does not exist',
    () => [...S(), 'run', 'nope', exampleEvent('refund-30')],
    'not_found',
    EXIT.notFound,
  ],
  ['runs ls --limit 0', () => [...S(), 'runs', 'ls', '--limit', '0'], 'usage', EXIT.usage, /--limit/],
  ['runs show of an unknown run', () => [...S(), 'runs', 'show', 'sha256:nope'], 'not_found', EXIT.notFound],
  ['history of an unknown run', () => [...S(), 'history', 'sha256:nope'], 'not_found', EXIT.notFound],
  ['verify an unknown run', () => [...S(), 'verify', 'sha256:nope'], 'not_found', EXIT.notFound],
  ['replay an unknown run', () => [...S(), 'replay', 'sha256:nope'], 'not_found', EXIT.notFound],
  [
    'replay without the tools the run used',
    () => ['--store', store, '--tools', join(sandbox.dir, 'no-tools.mjs'), 'replay', completedRun],
    'replay_unavailable',
    EXIT.replayUnavailable,
    /needs the tools? .*issue_refund.*--tools/,
  ],
  [
    'fork from a negative seq',
    () => [...S(), 'fork', completedRun, '--from', '-1'],
    'usage',
    EXIT.usage,
    /--from/,
  ],
  [
    'fork --mode branch without --yes and no terminal',
    () => [...S(), 'fork', completedRun, '--from', '1', '--mode', 'branch'],
    'usage',
    EXIT.usage,
    /issue_refund \(external, destructive\).*pass --yes/,
  ],
  [
    'rerun without --yes and no terminal',
    () => [...S(), 'rerun', completedRun],
    'usage',
    EXIT.usage,
    /pass --yes/,
  ],
  [
    'approve a run that waits for nothing',
    () => [...S(), 'approve', completedRun, '--as', 'dana'],
    'run_state',
    EXIT.conflict,
  ],
  [
    'approve an unknown run',
    () => [...S(), 'approve', 'sha256:nope', '--as', 'dana'],
    'not_found',
    EXIT.notFound,
  ],
  [
    'pause a run that waits for approval',
    () => [...S(), 'pause', waitingRun, '--as', 'dana'],
    'run_state',
    EXIT.conflict,
    /held already.*keel approve or keel deny.*keel cancel/,
  ],
  [
    'cancel a finished run',
    () => [...S(), 'cancel', completedRun, '--as', 'dana'],
    'run_terminal',
    EXIT.conflict,
  ],
  [
    'unpause a run that is not paused',
    () => [...S(), 'unpause', waitingRun, '--as', 'dana'],
    'run_state',
    EXIT.conflict,
  ],
  [
    'reconcile without saying what happened',
    () => [...S(), 'reconcile', completedRun],
    'usage',
    EXIT.usage,
    /--happened/,
  ],
  [
    'worker --concurrency 0',
    () => [...S(), 'worker', '--concurrency', '0'],
    'usage',
    EXIT.usage,
    /--concurrency/,
  ],
  ['serve on a port out of range', () => [...S(), 'serve', '--port', '70000'], 'usage', EXIT.usage, /--port/],
  // Keys and writs
  ['keys create without a tenant', () => [...S(), 'keys', 'create'], 'usage', EXIT.usage, /--tenant/],
  [
    'keys revoke of an unknown key',
    () => [...S(), '--tenant', 'acme', 'keys', 'revoke', 'nope'],
    'not_found',
    EXIT.notFound,
  ],
  [
    'writs issue without a request file',
    () => ['--tenant', 'acme', 'writs', 'issue', 'nope.json', '--key', 'nope.pem'],
    'usage',
    EXIT.usage,
  ],
  [
    'writs inspect a file that is not JSON',
    () => ['writs', 'inspect', join(sandbox.dir, 'not-json.json')],
    'writ_invalid',
    EXIT.usage,
  ],
  ['policy check of a missing file', () => ['policy', 'check', 'nope.yaml'], 'usage', EXIT.usage],
  ['demo with an unknown option', () => ['demo', '--fast'], 'usage', EXIT.usage],
];

describe('a mistake ends in one line with its code and exit code, never a stack trace', () => {
  for (const [what, args, code, exit, says] of MISTAKES) {
    test(what, async () => {
      const a = args();
      assertMistake(a, await keelHere(a), code, exit, says);
    });
  }

  test('nothing above created a store or a directory for the mistyped --store', () => {
    assert.equal(existsSync(join(sandbox.dir, 'typo')), false);
  });

  test('with --json the mistake is one JSON object with the code', async () => {
    for (const a of [
      ['--json', '--store', missingStore(), 'runs', 'ls'],
      ['--json', ...S(), 'runs', 'ls', '--versoin'],
      ['--json', ...S(), 'history', 'sha256:nope'],
    ]) {
      const r = await keelHere(a);
      assert.notEqual(r.code, 0, describeOutcome(a, r));
      assert.equal(r.stdout, '');
      const body = JSON.parse(r.stderr) as { error: string; message: string };
      assert.match(body.error, /^(store_not_found|usage|not_found)$/, describeOutcome(a, r));
    }
  });

  test('a port in use is a usage error naming --port', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = String((busy.address() as { port: number }).port);
    try {
      const a = [...S(), 'serve', '--port', port];
      assertMistake(
        a,
        await keelHere(a),
        'usage',
        EXIT.usage,
        new RegExp(`--port ${port}: .* already in use`),
      );
    } finally {
      busy.close();
    }
  });

  test('an internal error is one line too, and its stack is printed only with KEEL_DEBUG=1', async () => {
    // A tool whose descriptor throws when read: a TypeError out of Keel's own code, not a KeelError
    // (a bug's stand-in; a pack whose function throws is reported as a usage error instead).
    const pack = sandbox.write(
      'throwing-pack.mjs',
      "export default [{ get name() { throw new TypeError('boom'); } }];\n",
    );
    const a = [...S(), '--tools', pack, 'runs', 'ls'];
    const plain = await keelHere(a);
    assert.equal(plain.code, EXIT.internal, describeOutcome(a, plain));
    assert.match(plain.stderr, /^error: boom \[internal\] \(set KEEL_DEBUG=1 to print the stack trace\)\n$/);
    const debugging = new CliWorker({ HELPDESK_DB: sandbox.helpdesk(), KEEL_DEBUG: '1' });
    const debug = await debugging.run(a).finally(() => debugging.stop());
    assert.equal(debug.code, EXIT.internal, describeOutcome(a, debug));
    assert.match(debug.stderr, /^error: boom \[internal\]\nTypeError: boom\n\s+at /);
  });
});

describe('the real process: the mistakes the issue reported', () => {
  test('keel check x.yaml, keel runs ls on a mistyped store, keel promote --version: no stack, the right exit', () => {
    const cases: [string[], number, RegExp][] = [
      [['check', join(sandbox.dir, 'spec.yaml')], EXIT.usage, /not a plan module .*\[usage\]$/],
      [
        ['--store', missingStore(), 'runs', 'ls'],
        EXIT.storeUnavailable,
        /no store at .*\[store_not_found\]$/,
      ],
      [[...S(), 'promote', 'refund-under-50', 'LIVE', '--version', '9'], EXIT.notFound, /v9.*\[not_found\]$/],
    ];
    for (const [args, exit, says] of cases) {
      const r = runKeel(args, { cwd: sandbox.dir });
      assert.equal(r.code, exit, show(r));
      assert.equal(r.stdout, '', show(r));
      assert.match(r.stderr.trimEnd(), says, show(r));
      assert.equal(r.stderr.trimEnd().split('\n').length, 1, show(r));
    }
    assert.equal(existsSync(join(sandbox.dir, 'typo')), false);
  });

  test('keel serve on a port in use exits at once with a usage error (its recovery worker stopped too)', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = String((busy.address() as { port: number }).port);
    try {
      // runKeel gives up (and throws) after 20 s: a server that kept running would fail here.
      const r = runKeel([...S(), 'serve', '--port', port], { cwd: sandbox.dir });
      assert.equal(r.code, EXIT.usage, show(r));
      assert.match(
        r.stderr,
        new RegExp(`^error: --port ${port}: .* already in use.* \\[usage\\]\n$`),
        show(r),
      );
    } finally {
      busy.close();
    }
  });
});
