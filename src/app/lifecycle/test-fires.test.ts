/**
 * `keel test` fires a schedule at a stated virtual time (issue 29 §3): a spec test says
 * `fires: <instant>` (or `{ at, catchUp }`) instead of an event, and its run starts from the very
 * `schedule.fired` event the scheduler emits for that fire — same content-derived id, source,
 * payload — with its clock at the fire. `fires` is read strictly: an instant no schedule of the
 * spec fires at, a spec without a schedule, `event` beside `fires` or an unknown key is refused
 * with its field path.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ErrorCode, isKeelError } from '../../core/errors.ts';
import { payloadOf } from '../../core/ledger/index.ts';
import { parseSpec, type SpecProblem } from '../../core/spec/index.ts';
import { deploy, fakeSources } from '../../testing/index.ts';
import { createKeel } from '../keel.ts';
import { Scheduler } from '../scheduler.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-test-fires-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SPEC = (status: string, tests: string) => `id: weekday-close
version: 1
status: ${status}
triggers: [{ schedule: { cron: "0 9 * * 1-5", timezone: Europe/Berlin, missed: each } }]
steps:
  - name: close
    tool: core.identity
    args: { for: "{{event.payload.scheduledFor}}", catchUp: "{{event.payload.catchUp}}", at: "{{clock.now}}" }
limits: { maxSteps: 2, maxCostUsd: 0 }
${tests}`;

const TESTS = `tests:
  - name: monday 9 berlin
    fires: "2026-12-07T08:00:00Z"
    expect: { status: completed, steps: [close], args: { close: { for: "2026-12-07T08:00:00.000Z", catchUp: false, at: "2026-12-07T08:00:00.000Z" } } }
  - name: a catch-up
    fires: { at: "2026-12-08T08:00:00Z", catchUp: true }
    expect: { status: completed, args: { close: { catchUp: true } } }
`;

describe('tests[].fires', () => {
  test('a test run starts from the very fire event the scheduler emits, its clock at the fire', async () => {
    const keel = createKeel({ store: join(dir, 'fires.db'), sources: fakeSources() });
    try {
      await deploy(keel, 'acme', SPEC('TESTING', TESTS));
      const report = await keel.lifecycle.test('acme', 'weekday-close');
      assert.equal(report.passed, true, JSON.stringify(report, null, 2));
      const [monday, catchUp] = report.tests;
      const root = async (runId: string) =>
        payloadOf((await keel.runs.entries('acme', runId))[0]!, 'run.started');
      const m = await root(monday!.runId!);
      assert.equal(m.event.type, 'schedule.fired');
      assert.equal(m.event.source, 'schedule:weekday-close');
      assert.equal(m.event.subject, 'weekday-close');
      assert.equal(m.event.time, '2026-12-07T08:00:00.000Z');
      assert.deepEqual(m.event.payload, { scheduledFor: '2026-12-07T08:00:00.000Z', catchUp: false });
      assert.equal((await root(catchUp!.runId!)).event.payload.catchUp, true);

      // The scheduler, at that instant, names the fire alike: the same (source, id).
      await deploy(keel, 'live', SPEC('LIVE', ''));
      const emitted: Record<string, unknown>[] = [];
      await new Scheduler({
        store: keel.store,
        emit: async (t, v) => {
          emitted.push(v as Record<string, unknown>);
          return keel.events.emit(t, v, { channel: 'schedule' });
        },
        tenants: async () => ['live'],
        clock: () => Date.parse('2026-12-07T08:00:03Z'),
      }).tick();
      assert.equal(emitted.length, 1);
      assert.equal(emitted[0]!.id, m.event.id, 'the test names the fire as the scheduler does');
      assert.equal(emitted[0]!.source, m.event.source);
      assert.deepEqual(emitted[0]!.payload, m.event.payload);

      // Running the tests again finds the same runs (content-named).
      const again = await keel.lifecycle.test('acme', 'weekday-close');
      assert.deepEqual(
        again.tests.map((t) => [t.runId, t.created]),
        report.tests.map((t) => [t.runId, false]),
      );
    } finally {
      await keel.close();
    }
  });

  const problems = (tests: string, triggers?: string): SpecProblem[] => {
    let yaml = SPEC('DRAFT', tests);
    if (triggers) yaml = yaml.replace(/^triggers: .*$/m, `triggers: ${triggers}`);
    try {
      parseSpec(yaml, 'spec.yaml');
    } catch (e) {
      assert.ok(isKeelError(e) && e.code === ErrorCode.specInvalid, String(e));
      return e.details.problems as SpecProblem[];
    }
    return [];
  };
  const one = (tests: string, field: string, message: RegExp, triggers?: string) => {
    const p = problems(tests, triggers);
    assert.equal(p.length, 1, JSON.stringify(p));
    assert.equal(p[0]!.field, field);
    assert.match(p[0]!.message, message);
  };
  const t = (line: string) => `tests:\n  - name: x\n    ${line}\n    expect: { status: completed }\n`;

  test('is read strictly, naming the field', () => {
    // 08:30 UTC is 09:30 in Berlin: not a fire; the next one is named.
    one(
      t('fires: "2026-12-07T08:30:00Z"'),
      'tests[0].fires',
      /not a time a schedule of this spec fires at.*next fires at 2026-12-08T08:00:00.000Z/,
    );
    // Saturday: weekdays only.
    one(t('fires: "2026-12-05T08:00:00Z"'), 'tests[0].fires', /not a time a schedule/);
    one(t('fires: "2026-12-07 08:00"'), 'tests[0].fires', /RFC 3339/);
    one(t('fires: 1765094400'), 'tests[0].fires', /RFC 3339/);
    one(t('fires: { at: "2026-12-07T08:00:00Z", late: true }'), 'tests[0].fires.late', /unknown|not/i);
    one(t('fires: { catchUp: true }'), 'tests[0].fires.at', /missing/);
    one(
      t('fires: { at: "2026-12-07T08:00:00Z", catchUp: "yes" }'),
      'tests[0].fires.catchUp',
      /true or false/,
    );
    one(t('fires: "2026-12-07T08:00:00Z"\n    event: { type: x }'), 'tests[0].fires', /not both/);
    one(
      t('fires: "2026-12-07T08:00:00Z"'),
      'tests[0].fires',
      /no schedule trigger/,
      '[{ event: ticket.closed }]',
    );
    one('tests:\n  - name: x\n    expect: { status: completed }\n', 'tests[0].event', /or fires/);
    assert.deepEqual(problems(t('fires: "2026-12-07T08:00:00+01:00"').replace('08:00:00+', '09:00:00+')), []);
  });
});
