/**
 * Finding a run from the command line: `keel runs ls --subject` (exactly), `--subject-prefix`,
 * `--id` (a run id or its first 8+ hex digits) and `--before` (jump to a date, then `--cursor` for
 * older ones), as text and `--json`; a bad value is exit 2 naming the flag; other tenants' runs
 * are never listed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createKeel } from '../../src/app/index.ts';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { deploy } from '../../src/testing/index.ts';
import { CliWorker, type Ran } from '../helpers/cli-in-process.ts';
import { Sandbox } from '../helpers/keel-cli.ts';

const sandbox = new Sandbox('runs-find-cli');
after(() => sandbox.remove());
const cli = new CliWorker();
after(() => cli.stop());

const SPEC = `id: ping
version: 1
status: LIVE
triggers: [{ event: ping }]
steps:
  - { name: a, tool: core.noop }
limits: { maxSteps: 1, maxCostUsd: 0 }
`;

interface Page {
  runs: { runId: string; subject?: string; createdAt: string }[];
  next?: string;
}

const json = (r: Ran): Page => {
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout) as Page;
};

describe('keel runs ls: find a run', () => {
  const store = sandbox.store();
  const keel = (...args: string[]) => cli.run(['--store', store, ...args]);
  /** Runs started, oldest first. */
  const started: { subject: string; runId: string; createdAt: string }[] = [];
  before(async () => {
    const k = createKeel({ store });
    await deploy(k, 'default', SPEC);
    await deploy(k, 'other', SPEC);
    const subjects = ['T-1', 'T-10', 'T-2', 'T-1', 'T-1'];
    for (const [i, subject] of subjects.entries()) {
      const r = await k.events.emit('default', {
        id: `e-${i}`,
        type: 'ping',
        subject,
        time: '2026-12-01T10:00:00Z',
      });
      const runId = r.runs[0]!.runId;
      started.push({ subject, runId, createdAt: (await k.runs.get('default', runId)).createdAt });
      await new Promise((res) => setTimeout(res, 5));
    }
    await k.events.emit('other', { id: 'o-1', type: 'ping', subject: 'T-1', time: '2026-12-01T10:00:00Z' });
    await k.close();
  });
  const newest = (pick: (s: string) => boolean) =>
    started
      .filter((s) => pick(s.subject))
      .map((s) => s.runId)
      .reverse();

  test('--subject and --subject-prefix find runs, newest first, each with its subject, in the tenant only', async () => {
    const exact = json(await keel('runs', 'ls', '--subject', 'T-1', '--json'));
    assert.deepEqual(
      exact.runs.map((r) => r.runId),
      newest((s) => s === 'T-1'),
    );
    assert.ok(exact.runs.every((r) => r.subject === 'T-1'));
    const prefix = json(await keel('runs', 'ls', '--subject-prefix', 'T-1', '--json'));
    assert.deepEqual(
      prefix.runs.map((r) => r.runId),
      newest((s) => s.startsWith('T-1')),
    );
    const text = await keel('runs', 'ls', '--subject', 'T-2');
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^${started[2]!.runId}  ping v1  .*"T-2"`, 'm'));
    assert.equal(text.stdout.trim().split('\n').length, 1);
    const theirs = json(await keel('--tenant', 'other', 'runs', 'ls', '--subject', 'T-1', '--json'));
    assert.equal(theirs.runs.length, 1);
    assert.ok(!started.some((s) => s.runId === theirs.runs[0]!.runId));
  });

  test('--id finds a run by its first hex digits; --before jumps to a date and --cursor pages on', async () => {
    const target = started[3]!.runId;
    const byId = json(await keel('runs', 'ls', '--id', target.slice(7, 17), '--json'));
    assert.deepEqual(
      byId.runs.map((r) => r.runId),
      [target],
    );
    const at = started[3]!.createdAt;
    const older = started
      .slice(0, 3)
      .map((s) => s.runId)
      .reverse();
    const first = json(await keel('runs', 'ls', '--before', at, '--limit', '2', '--json'));
    assert.deepEqual(
      first.runs.map((r) => r.runId),
      older.slice(0, 2),
    );
    assert.ok(first.next);
    const rest = json(
      await keel('runs', 'ls', '--before', at, '--limit', '2', '--cursor', first.next, '--json'),
    );
    assert.deepEqual(
      rest.runs.map((r) => r.runId),
      older.slice(2),
    );
    const both = json(await keel('runs', 'ls', '--subject', 'T-1', '--before', at, '--json'));
    assert.deepEqual(
      both.runs.map((r) => r.runId),
      [started[0]!.runId],
    );
  });

  test('a bad value is exit 2 naming the flag, and lists nothing', async () => {
    const refused = async (args: string[], message: RegExp) => {
      const r = await keel('runs', 'ls', ...args);
      assert.equal(r.code, EXIT.usage, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, message);
    };
    await refused(['--before', '2026-02-30T00:00:00Z'], /--before: .*February 2026 has 28 days/);
    await refused(['--before', '2026-02-01'], /--before: .*a date alone has no time of day/);
    await refused(['--since', 'yesterday'], /--since: expected an RFC 3339 instant/);
    await refused(['--id', 'abc'], /--id: a run id prefix has 8 to 64 hex digits, got 3/);
    await refused(['--id', 'T-1'], /--id: expected a run id or the first 8\+ hex digits/);
    await refused(['--subject', ''], /--subject: expected 1 to 512 characters, got 0/);
  });
});
