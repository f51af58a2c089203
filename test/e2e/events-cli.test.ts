/**
 * One event, one run, through the `keel` command: `keel emit` of the same event again answers its
 * first run (exit 0), a restamped one is refused with exit 4 `event_conflict` and listed by
 * `keel events conflicts`; `keel events show` reads the first delivery; `keel rollout --sticky-by`
 * is checked strictly. Then real processes at once — separate `keel emit` processes on one SQLite
 * file and on one PostgreSQL schema, delivering one (source, id): exactly one run, every process
 * answered with it (same content) or refused with event_conflict (other content).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dropSchema, scratchSchemaName, testDatabaseUrl } from '../../src/adapters/postgres/index.ts';
import { createKeel, openStore } from '../../src/app/index.ts';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { deploy } from '../../src/testing/index.ts';
import { CliWorker, type Ran } from '../helpers/cli-in-process.ts';
import { type CliResult, runKeelAsync, Sandbox, show } from '../helpers/keel-cli.ts';

const sandbox = new Sandbox('events-cli');
after(() => sandbox.remove());
const cli = new CliWorker();
after(() => cli.stop());

const SPEC = (version: number, status: string) => `id: refund
version: ${version}
status: ${status}
triggers: [{ event: refund.requested }]
steps:
  - { name: a, tool: core.identity, args: { amount: "{{event.payload.amount}}" } }
limits: { maxSteps: 1, maxCostUsd: 0 }
`;

const refund = (o: { id?: string; time?: string; amount?: number } = {}) => ({
  id: o.id ?? 'evt-1',
  type: 'refund.requested',
  subject: 'T-1',
  time: o.time ?? '2026-12-01T10:00:00Z',
  payload: { amount: o.amount ?? 30 },
});

const json = <T>(r: Ran): T => {
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout) as T;
};

interface Emitted {
  eventId: string;
  source: string;
  runs: { runId: string; created: boolean; version: number }[];
  redelivery?: boolean;
}

describe('keel emit and keel events', () => {
  const store = sandbox.store();
  const keel = (...args: string[]) => cli.run(['--store', store, ...args]);
  before(async () => {
    const k = createKeel({ store });
    await deploy(k, 'default', SPEC(1, 'LIVE'));
    await k.close();
  });

  test('the same event again answers its first run; a restamped one is exit 4 event_conflict, listed', async () => {
    const file = sandbox.write('refund.json', refund());
    const first = json<Emitted>(await keel('emit', file, '--json'));
    assert.equal(first.source, 'cli', 'an event without a source is named by the channel');
    assert.equal(first.runs[0]?.created, true);
    const again = await keel('emit', file);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /event evt-1 of source cli was delivered before \(.*\) with the same content/);
    assert.match(again.stdout, new RegExp(`existing run ${first.runs[0]!.runId}`));
    const restamped = await keel(
      'emit',
      sandbox.write('restamped.json', refund({ time: '2026-12-01T10:07:00Z' })),
    );
    assert.equal(restamped.code, EXIT.conflict, restamped.stderr);
    assert.match(restamped.stderr, /time differs.*this delivery started nothing.*\[event_conflict\]/);
    const asJson = await keel(
      'emit',
      sandbox.write('restamped.json', refund({ time: '2026-12-01T10:07:00Z' })),
      '--json',
    );
    assert.equal(asJson.code, EXIT.conflict);
    const err = JSON.parse(asJson.stderr) as { error: string; details: { fields: string[]; runs: string[] } };
    assert.deepEqual(
      [err.error, err.details.fields, err.details.runs],
      ['event_conflict', ['time'], [first.runs[0]!.runId]],
    );

    const conflicts = json<{ eventId: string; fields: string[]; count: number }[]>(
      await keel('events', 'conflicts', '--json'),
    );
    assert.deepEqual(
      conflicts.map((c) => [c.eventId, c.fields, c.count]),
      [['evt-1', ['time'], 2]],
    );
    const listed = await keel('events', 'conflicts');
    assert.match(
      listed.stdout,
      /event evt-1 of source cli: time differs from the first delivery; refused 2 times/,
    );
    const shown = await keel('events', 'show', 'evt-1');
    assert.match(
      shown.stdout,
      /event evt-1 of source cli: refund.requested about T-1, time 2026-12-01T10:00:00Z/,
    );
    assert.match(shown.stdout, new RegExp(`run ${first.runs[0]!.runId} refund v1`));
    const missing = await keel('events', 'show', 'evt-1', '--source', 'shop');
    assert.equal(missing.code, EXIT.notFound);
    const runs = json<{ runs: unknown[] }>(await keel('runs', 'ls', '--json'));
    assert.equal(runs.runs.length, 1, 'one run, whatever was redelivered');
    assert.equal((await keel('events', 'conflicts', '--limit', '0')).code, EXIT.usage);
  });

  test('keel rollout --sticky-by: a key that is not subject, event or payload.<field> is refused naming it', async () => {
    const k = createKeel({ store });
    await deploy(k, 'default', SPEC(2, 'SHADOW'));
    await k.close();
    const bad = await keel(
      'rollout',
      'refund',
      '--to',
      '2',
      '--percent',
      '50',
      '--sticky-by',
      'customer',
      '--override',
      '--reason',
      'x',
    );
    assert.equal(bad.code, EXIT.usage, bad.stderr);
    assert.match(bad.stderr, /stickyBy: expected subject, event or payload/);
    assert.match((await keel('rollout', 'refund')).stdout, /has no rollout/);
    const ok = await keel(
      'rollout',
      'refund',
      '--to',
      '2',
      '--percent',
      '50',
      '--sticky-by',
      'payload.customer_id',
      '--override',
      '--reason',
      'x',
    );
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(
      (await keel('rollout', 'refund')).stdout,
      /events with the same payload.customer_id stay on one version/,
    );
  });
});

/** `count` real `keel emit --enqueue` processes delivering `events[i % events.length]` at once. */
async function deliverAtOnce(store: string, events: readonly object[], count: number): Promise<CliResult[]> {
  const files = events.map((e, i) => sandbox.write(`race-${i}.json`, e));
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      runKeelAsync(['--store', store, '--json', 'emit', '--enqueue', files[i % files.length]!], {
        timeoutMs: 60_000,
      }),
    ),
  );
}

const pgBase = testDatabaseUrl();
const pgSchema = scratchSchemaName('keel_test_events_cli');
const BACKENDS = [
  { name: 'one SQLite file', store: () => sandbox.store('race') },
  {
    name: 'one PostgreSQL schema',
    store: () => `${pgBase}${pgBase.includes('?') ? '&' : '?'}schema=${pgSchema}`,
    cleanup: () => dropSchema(pgBase, pgSchema),
  },
];

for (const backend of BACKENDS)
  describe(`separate keel emit processes at once, on ${backend.name}`, () => {
    const store = backend.store();
    before(async () => {
      const k = createKeel({ store: await openStore(store) });
      await deploy(k, 'default', SPEC(1, 'LIVE'));
      await k.close();
    });
    after(async () => backend.cleanup?.());

    const runsOf = async () => {
      const k = createKeel({ store: await openStore(store) });
      try {
        return (await k.runs.list('default', { limit: 100 })).runs;
      } finally {
        await k.close();
      }
    };

    test('one event from four processes: one run, every process answered with it', async () => {
      const results = await deliverAtOnce(store, [refund({ id: 'same' })], 4);
      for (const r of results) assert.equal(r.code, 0, show(r));
      const answers = results.map((r) => JSON.parse(r.stdout) as Emitted);
      const ids = new Set(answers.map((a) => a.runs[0]?.runId));
      assert.equal(ids.size, 1, 'one run named in every answer');
      assert.equal(answers.filter((a) => a.runs[0]?.created).length, 1, 'created once');
      assert.equal((await runsOf()).filter((r) => r.eventId === 'same').length, 1);
    });

    test('one (source, id) with four contents from four processes: one wins, three are event_conflict, one run', async () => {
      const results = await deliverAtOnce(
        store,
        [0, 1, 2, 3].map((i) => refund({ id: 'contended', amount: 100 + i })),
        4,
      );
      const won = results.filter((r) => r.code === 0);
      assert.equal(won.length, 1, results.map(show).join('\n'));
      for (const r of results.filter((x) => x.code !== 0)) {
        assert.equal(r.code, EXIT.conflict, show(r));
        assert.equal((JSON.parse(r.stderr) as { error: string }).error, 'event_conflict');
      }
      const runs = (await runsOf()).filter((r) => r.eventId === 'contended');
      assert.deepEqual(
        runs.map((r) => r.runId),
        [(JSON.parse(won[0]!.stdout) as Emitted).runs[0]!.runId],
      );
    });
  });
