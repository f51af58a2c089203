/**
 * `keel fork --mode branch` calls a run's tools again for real, so it says which (destructive ones
 * marked) and asks first: on a terminal it takes "y" and nothing else; without one it needs --yes
 * and otherwise creates nothing. `keel run` of a version not yet LIVE is simulated, and acts only
 * with --live, which asks the same way. The terminal is a real pseudo-terminal, through
 * util-linux's `script`; the replies and refunds are counted on the helpdesk's own side.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { Helpdesk } from '../../examples/support-desk/helpdesk.ts';
import { supportDeskTools } from '../../examples/support-desk/tools.ts';
import { createKeel } from '../../src/app/index.ts';
import { setStatus } from '../../src/testing/index.ts';
import { KEEL_COMMAND } from '../../src/testing/keel-command.ts';
import {
  exampleEvent,
  exampleSpec,
  failJson,
  okJson,
  Sandbox,
  show,
  supportDesk,
} from '../helpers/keel-cli.ts';
import { HelpdeskFile, withDb } from '../helpers/sqlite-files.ts';

const sandbox = new Sandbox('fork-confirm', { supportDesk: true });
after(() => sandbox.remove());
const desk = new HelpdeskFile(sandbox.helpdesk());
let source = '';

const runCount = () =>
  withDb(sandbox.store(), (db) => (db.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n);

/** `keel ...args` on a pseudo-terminal, typing `answer` at its prompt; the exit code and all it printed. */
function onTerminal(args: readonly string[], answer: string): { code: number | null; out: string } {
  const desk = supportDesk(sandbox.helpdesk());
  const quoted = [process.execPath, ...KEEL_COMMAND, '--store', sandbox.store(), ...desk.args, ...args]
    .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
    .join(' ');
  const r = spawnSync('script', ['-qec', quoted, '/dev/null'], {
    cwd: sandbox.dir,
    input: `${answer}\n`,
    encoding: 'utf8',
    env: { ...process.env, ...desk.env, NO_COLOR: '1', KEEL_STORE: '', NODE_TEST_CONTEXT: '' },
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout };
}

before(async () => {
  const helpdesk = new Helpdesk(sandbox.helpdesk());
  const keel = createKeel({ store: sandbox.store(), tools: supportDeskTools(helpdesk) });
  const file = exampleSpec('refund-under-50');
  const { record } = await keel.workflows.publish('default', readFileSync(file, 'utf8'), file, 'dana');
  // Not a test of promotion: put at AUTONOMOUS directly (a recorded fixture, past the gates).
  await setStatus(keel, 'default', 'refund-under-50', record.version, 'AUTONOMOUS', 'dana');
  const r = await keel.events.emit('default', JSON.parse(readFileSync(exampleEvent('refund-30'), 'utf8')));
  source = r.runs[0]!.runId;
  // v2, published and never tested: a DRAFT.
  const v2 = readFileSync(file, 'utf8').replace(/^version: 1$/m, 'version: 2');
  await keel.workflows.publish('default', v2, file, 'dana');
  await keel.close();
  helpdesk.shutdown();
  assert.equal(desk.calls('issue_refund'), 1);
});

describe('keel fork --mode branch asks before it calls tools for real', () => {
  const fork = () => ['fork', source, '--from', '1', '--mode', 'branch'];

  test('on a terminal it lists the steps, marks the destructive one, and "n" creates nothing', () => {
    const before_ = runCount();
    const r = onTerminal(fork(), 'n');
    assert.equal(r.code, 2, r.out);
    assert.match(
      r.out,
      /calls its tools for real \(the version is AUTONOMOUS: destructive steps run without approval\)/,
    );
    assert.match(r.out, /reply\s+draft_reply\s+write\r?\n/);
    assert.match(r.out, /refund\s+issue_refund\s+external\s+DESTRUCTIVE/);
    assert.match(r.out, /Go ahead\? \[y\/N\]/);
    assert.match(r.out, /error: keel fork --mode branch: not confirmed, nothing was started \[usage\]/);
    assert.equal(runCount(), before_);
    assert.equal(desk.calls('issue_refund'), 1);
  });

  test('without a terminal and without --yes it refuses, naming --yes, and creates nothing', () => {
    const before_ = runCount();
    const err = failJson(sandbox.keel([...fork(), '--json']), 2);
    assert.equal(err.error, 'usage');
    assert.equal(err.details?.field, 'yes');
    assert.match(err.message, /pass --yes/);
    assert.equal(runCount(), before_);
  });

  test('"y" on the terminal forks, and the refund is issued again for real', () => {
    const r = onTerminal(fork(), 'y');
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /fork sha256:[0-9a-f]{64} \(branch from seq 1/);
    assert.equal(desk.calls('issue_refund'), 2);
  });

  test('--yes confirms ahead, with no prompt', () => {
    const r = sandbox.keel(['fork', source, '--from', '0', '--mode', 'branch', '--yes', '--json']);
    assert.equal(okJson<{ created: boolean }>(r).created, true, show(r));
    assert.doesNotMatch(r.stderr, /Go ahead/);
    assert.equal(desk.calls('issue_refund'), 3);
  });
});

describe('keel run of a version not yet LIVE is simulated unless --live, which asks first', () => {
  const run = (...more: string[]) => [
    'run',
    'refund-under-50',
    exampleEvent('refund-30'),
    '--version',
    '2',
    ...more,
  ];
  const acted = () => [desk.calls('draft_reply'), desk.calls('issue_refund')];

  test('a DRAFT runs simulated: nothing reaches the helpdesk, and it says so', () => {
    const before_ = acted();
    const r = okJson<{ simulated?: boolean; status: string; created: boolean }>(
      sandbox.keel([...run(), '--json']),
    );
    assert.deepEqual([r.simulated, r.status, r.created], [true, 'completed', true]);
    assert.deepEqual(acted(), before_, 'no reply drafted, no refund issued');
    const text = sandbox.keel(run());
    assert.equal(text.code, 0, show(text));
    assert.match(text.stdout, /existing simulated run sha256:[0-9a-f]{64} refund-under-50 v2: completed/);
    assert.match(text.stdout, /no write or external tool acted \(--live acts for real\)/);
  });

  test('--live without a terminal and without --yes refuses, naming --yes, and creates nothing', () => {
    const before_ = runCount();
    const err = failJson(sandbox.keel([...run('--live'), '--json']), 2);
    assert.equal(err.error, 'usage');
    assert.equal(err.details?.field, 'yes');
    assert.match(
      err.message,
      /keel run --live calls tools for real: draft_reply \(write\), issue_refund \(external, destructive\)/,
    );
    assert.equal(runCount(), before_);
  });

  test('--live on a terminal lists the tools; "n" creates nothing', () => {
    const before_ = runCount();
    const r = onTerminal(run('--live'), 'n');
    assert.equal(r.code, 2, r.out);
    assert.match(
      r.out,
      /keel run --live walks refund-under-50 v2 and calls its tools for real \(the version is DRAFT/,
    );
    assert.match(r.out, /refund\s+issue_refund\s+external\s+DESTRUCTIVE/);
    assert.equal(runCount(), before_);
  });

  test('--live --yes acts: the reply is drafted for real, the destructive refund waits for a person', () => {
    const [replies, refunds] = acted();
    const r = okJson<{ simulated?: boolean; status: string }>(
      sandbox.keel([...run('--live', '--yes'), '--json']),
    );
    assert.deepEqual([r.simulated, r.status], [undefined, 'waiting_approval']);
    assert.deepEqual(acted(), [replies! + 1, refunds]);
  });

  test('--yes without --live is refused, naming --yes', () => {
    const err = failJson(sandbox.keel([...run('--yes'), '--json']), 2);
    assert.deepEqual([err.error, err.details?.field], ['usage', 'yes']);
  });
});
