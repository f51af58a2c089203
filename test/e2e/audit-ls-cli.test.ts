/**
 * `keel audit ls` through the real binary on a SQLite file: entries across runs, oldest first,
 * filtered by actor (an approver, a canceller), kind, code, run and time, paged with the cursor
 * the human output prints; `--counts` by kind; another tenant's store view is empty; bad filters
 * exit 2 naming the field; and the command opens the store read-only (it works on a store this
 * process cannot write).
 */
import assert from 'node:assert/strict';
import { chmodSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { failJson, okJson, Sandbox, show } from '../helpers/keel-cli.ts';

const sandbox = new Sandbox('audit-ls');
after(() => {
  chmodSync(sandbox.dir, 0o755);
  sandbox.remove();
});
const keel = (...args: string[]) =>
  sandbox.keel(['--tenant', 'acme', ...args], { env: { KEEL_USER: 'dana' } });

const SPEC = `id: gated
version: 1
status: DRAFT
triggers: [{ event: go }]
steps:
  - { name: first, tool: core.noop }
  - { name: gate, tool: core.approvalGate }
limits: { maxSteps: 2, maxCostUsd: 0 }
`;

interface Item {
  runId: string;
  workflowId: string;
  version: number;
  kind: string;
  seq: number;
  at: string;
  payload: Record<string, unknown>;
}

test('keel audit ls: across runs, by actor, kind, run and time, paged; --counts; read-only', () => {
  okJson(keel('--json', 'publish', sandbox.write('gated.yaml', SPEC)));
  const event = (id: string) =>
    sandbox.write(`${id}.json`, { id, type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });
  const approved = okJson<{ runId: string }>(
    keel('--json', 'run', 'gated', event('e1'), '--live', '--yes'),
  ).runId;
  const cancelled = okJson<{ runId: string }>(
    keel('--json', 'run', 'gated', event('e2'), '--live', '--yes'),
  ).runId;
  okJson(keel('--json', 'approve', approved));
  okJson(
    sandbox.keel(['--tenant', 'acme', '--json', 'cancel', cancelled, '--reason', 'dup'], {
      env: { KEEL_USER: 'erin' },
    }),
  );

  const all = okJson<{ entries: Item[]; next?: string }>(keel('--json', 'audit', 'ls'));
  assert.equal(all.next, undefined);
  assert.deepEqual(new Set(all.entries.map((e) => e.runId)), new Set([approved, cancelled]));
  assert.deepEqual(
    all.entries.map((e) => e.at),
    all.entries.map((e) => e.at).sort(),
    'oldest first',
  );

  const dana = okJson<{ entries: Item[] }>(keel('--json', 'audit', 'ls', '--actor', 'dana')).entries;
  assert.deepEqual(
    dana.map((e) => e.kind),
    ['approval.resolved', 'step.allowed'],
  );
  assert.ok(dana.every((e) => e.runId === approved && e.workflowId === 'gated' && e.version === 1));
  const erin = okJson<{ entries: Item[] }>(keel('--json', 'audit', 'ls', '--actor', 'erin')).entries;
  assert.deepEqual(
    erin.map((e) => [e.runId, e.kind, e.payload.reason]),
    [[cancelled, 'run.finished', 'cancelled by erin: dup']],
  );
  const byRun = okJson<{ entries: Item[] }>(
    keel('--json', 'audit', 'ls', '--run', cancelled, '--kind', 'run.started'),
  );
  assert.deepEqual(
    byRun.entries.map((e) => [e.runId, e.seq]),
    [[cancelled, 0]],
  );
  const since = all.entries[3]!.at;
  const later = okJson<{ entries: Item[] }>(keel('--json', 'audit', 'ls', '--since', since)).entries;
  assert.deepEqual(
    later,
    all.entries.filter((e) => e.at >= since),
  );
  assert.ok(later.length > 0 && later.length < all.entries.length);

  // People: one line per entry, then where to go on.
  const page = keel('audit', 'ls', '--limit', '2');
  assert.equal(page.code, 0, show(page));
  const lines = page.stdout.trim().split('\n');
  assert.equal(lines.length, 3, show(page));
  assert.match(
    lines[0]!,
    new RegExp(
      `^${all.entries[0]!.at}  ${all.entries[0]!.runId.slice(7, 19)}  #0  run\\.started  Started gated v1`,
    ),
  );
  const cursor = /^next: --cursor (\S+)$/.exec(lines[2]!)?.[1];
  assert.ok(cursor, show(page));
  const rest = okJson<{ entries: Item[] }>(keel('--json', 'audit', 'ls', '--cursor', cursor));
  assert.deepEqual(rest.entries, all.entries.slice(2));
  const resolved = keel('audit', 'ls', '--actor', 'dana', '--kind', 'approval.resolved');
  assert.match(resolved.stdout, /approval\.resolved {2}dana approved the proposal\.\n$/, show(resolved));

  const counts = okJson<{ counts: Record<string, number>; total: number }>(
    keel('--json', 'audit', 'ls', '--counts'),
  );
  assert.equal(counts.total, all.entries.length);
  assert.equal(counts.counts['run.started'], 2);
  assert.equal(counts.counts['step.reconciled'], 0);
  const human = keel('audit', 'ls', '--counts', '--actor', 'dana');
  assert.match(human.stdout, /^step\.allowed {7}1\napproval\.resolved {2}1\ntotal {14}2\n$/, show(human));

  // Another tenant sees none of it, not even by run id.
  const theirs = okJson<{ entries: Item[] }>(
    sandbox.keel(['--tenant', 'globex', '--json', 'audit', 'ls', '--run', approved]),
  );
  assert.deepEqual(theirs.entries, []);

  for (const [args, field] of [
    [['--kind', 'step.nope'], undefined],
    [['--run', 'abc'], 'runId'],
    [['--since', 'noon'], 'since'],
    [['--limit', '501'], 'limit'],
    [['--cursor', 'garbage'], 'cursor'],
    [['--counts', '--limit', '5'], 'limit'],
  ] as const) {
    const err = failJson(keel('--json', 'audit', 'ls', ...args), 2);
    assert.equal(err.error, 'usage');
    if (field) assert.equal(err.details?.field, field, JSON.stringify(args));
  }

  // Read-only: it lists a store this process cannot write.
  for (const f of readdirSync(sandbox.dir)) chmodSync(join(sandbox.dir, f), 0o444);
  chmodSync(sandbox.dir, 0o555);
  const readOnly = sandbox.keel(['--tenant', 'acme', '--json', 'audit', 'ls', '--actor', 'dana'], {
    unprivileged: true,
  });
  assert.equal(readOnly.code, 0, show(readOnly));
  assert.equal((JSON.parse(readOnly.stdout) as { entries: Item[] }).entries.length, 2);
});
