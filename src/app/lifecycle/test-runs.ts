/**
 * TESTING: a version's `tests:` (and events given by hand) run in simulated mode — every check as
 * in a live run, no write or external tool ever acting, nobody asked — and each test's
 * expectations held against what its run decided. Each test run is a normal ledgered run (mode
 * `test`), listed and verifiable like any other, named by its content: running the tests of a
 * version again finds the same runs, and the gate to SHADOW reads them by name.
 *
 * A test first expects its event to start the version (one of its triggers matches it), or, with
 * `starts: false`, not to: where the version would not start, or the test says it must not, no run
 * is made and whether it starts is the whole verdict.
 */
import type { Entry, EventRecord, TestRef } from '../../core/ledger/index.ts';
import { checkTest, type ExpectationResult, runDecisions, startsOn } from '../../core/lifecycle/index.ts';
import { parseEvent } from '../../core/run/index.ts';
import { fireEvent } from '../../core/schedule/index.ts';
import {
  parseDuration,
  type SpecTest,
  scheduleFiringAt,
  TEST_EVENT_TIME,
  type WorkflowSpec,
} from '../../core/spec/index.ts';
import type { Engine } from '../../engine/index.ts';
import type { Store, VersionRecord } from '../../ports/index.ts';

export interface TestResult {
  readonly name: string;
  /** The test's run; absent where none was made (the version does not start, or must not). */
  readonly runId?: string;
  /** Whether the version starts on the test's event (one of its triggers matches it). */
  readonly starts: boolean;
  /** The run's final status (`not started` without a run). */
  readonly status: string;
  /** The steps the run reached, in order. */
  readonly steps: readonly string[];
  /** The refusal it ended with, if any (`code`). */
  readonly refusal?: string;
  /** Steps a person would have been asked about (the test assumed its `approvals`). */
  readonly approvals: readonly string[];
  readonly passed: boolean;
  /** Each expectation of a spec test; none for an event given by hand. */
  readonly results: readonly ExpectationResult[];
  /** True for an event given by hand (no expectations: it passes unless its run failed). */
  readonly adhoc?: true;
  readonly created: boolean;
}

export interface TestReport {
  readonly workflowId: string;
  readonly version: number;
  readonly passed: boolean;
  readonly tests: readonly TestResult[];
}

/**
 * The event a spec test starts its run with, for `tenant`: its `event`, or for a test of a
 * schedule's fire (`fires`) the very event the scheduler emits for that fire (`fireEvent`).
 */
export function testEvent(
  t: SpecTest,
  tenant: string,
  spec: Pick<WorkflowSpec, 'id' | 'triggers'>,
): EventRecord {
  if (t.fires) {
    const at = Date.parse(t.fires.at);
    const schedules = spec.triggers.flatMap((x) => (x.schedule ? [x.schedule] : []));
    // Validation made sure one fires then (test-fire.ts).
    const schedule = scheduleFiringAt(schedules, at)!;
    return parseEvent(fireEvent(spec.id, schedule, { at, catchUp: t.fires.catchUp }), tenant);
  }
  const e = t.event!;
  return parseEvent(
    {
      id: e.id ?? `test-${t.name}`,
      type: e.type,
      ...(e.source !== undefined ? { source: e.source } : {}),
      ...(e.subject !== undefined ? { subject: e.subject } : {}),
      payload: e.payload ?? {},
      time: e.time ?? TEST_EVENT_TIME,
    },
    tenant,
  );
}

/**
 * The test as its run's root records it (and its run id is derived from): its name, the decision
 * it assumes, its clock, and its declared arrivals as full canonical events (an arrival's id
 * defaults to `arrival-<n>`, its time to where the test's clock stands then).
 */
function testRef(name: string, t: SpecTest | undefined, tenant: string): TestRef {
  const clock = t?.clock ?? t?.fires?.at;
  const start = Date.parse(clock ?? TEST_EVENT_TIME);
  const arrives = t?.arrives?.map((a, i) => {
    const d = parseDuration(a.at);
    const at = 'ms' in d ? d.ms : 0;
    const e = a.event;
    return {
      at: a.at,
      event: parseEvent(
        {
          id: e.id ?? `arrival-${i}`,
          type: e.type,
          ...(e.source !== undefined ? { source: e.source } : {}),
          ...(e.subject !== undefined ? { subject: e.subject } : {}),
          payload: e.payload ?? {},
          time: e.time ?? new Date(start + at).toISOString(),
        },
        tenant,
      ),
    };
  });
  return {
    name,
    approvals: t?.approvals ?? 'approve',
    ...(clock ? { clock } : {}),
    ...(arrives && arrives.length > 0 ? { arrives } : {}),
  };
}

/** Whether a spec test is decided without a run: the version does not start on its event, or must not. */
const decidedByStart = (t: SpecTest, starts: boolean) => !starts || t.expect.starts === false;

/** The result of a spec test decided by whether the version starts alone (no run made). */
function startResult(name: string, starts: boolean, test: SpecTest): TestResult {
  const verdict = checkTest(test.expect, { starts });
  return {
    name,
    starts,
    status: starts ? 'started' : 'not started',
    steps: [],
    approvals: [],
    passed: verdict.passed,
    results: verdict.results,
    created: false,
  };
}

function result(
  name: string,
  runId: string,
  created: boolean,
  entries: readonly Entry[],
  test: SpecTest | undefined,
  starts: boolean,
): TestResult {
  const d = runDecisions(entries);
  const refused = d.steps.find((s) => s.outcome === 'refused');
  const base = {
    name,
    runId,
    starts,
    status: d.status,
    steps: d.steps.map((s) => s.step),
    ...(refused?.code ? { refusal: refused.code } : d.finished?.code ? { refusal: d.finished.code } : {}),
    approvals: d.steps.filter((s) => s.approval).map((s) => s.step),
    created,
  };
  if (!test) return { ...base, passed: d.status !== 'failed', results: [], adhoc: true };
  const verdict = checkTest(test.expect, { starts, run: d });
  return { ...base, passed: verdict.passed, results: verdict.results };
}

/** Runs the version's spec tests and the events given by hand (named), walking each here. */
export async function runTests(
  d: { readonly engine: Engine; readonly store: Store },
  tenant: string,
  version: VersionRecord,
  adhoc: readonly { readonly name: string; readonly event: unknown }[] = [],
): Promise<TestReport> {
  const tests: TestResult[] = [];
  const one = async (name: string, event: EventRecord, test: SpecTest | undefined) => {
    const starts = startsOn(version.spec, event);
    if (test && decidedByStart(test, starts)) {
      tests.push(startResult(name, starts, test));
      return;
    }
    const { run, created } = await d.engine.startSimulated(version, event, {
      mode: 'test',
      test: testRef(name, test, tenant),
      walk: 'inline',
    });
    const entries = await entriesOf(d.engine, tenant, run.runId);
    tests.push(result(name, run.runId, created, entries, test, starts));
  };
  for (const t of version.spec.tests ?? []) await one(t.name, testEvent(t, tenant, version.spec), t);
  for (const a of adhoc) await one(a.name, parseEvent(a.event, tenant), undefined);
  return {
    workflowId: version.workflowId,
    version: version.version,
    passed: tests.every((t) => t.passed),
    tests,
  };
}

/** A run's verified entries (the check every action makes: an edited test run is not evidence). */
async function entriesOf(engine: Engine, tenant: string, runId: string): Promise<Entry[]> {
  return (await engine.load(tenant, runId)).entries;
}

/**
 * What the gate to SHADOW reads: each spec test of the version and its run, by name — passed,
 * failed, or not run (null); a test decided by whether the version starts has no run. Nothing is
 * run here.
 */
export async function testEvidence(
  d: { readonly engine: Engine; readonly store: Store },
  tenant: string,
  version: VersionRecord,
): Promise<{ name: string; runId?: string; passed: boolean | null }[]> {
  const out: { name: string; runId?: string; passed: boolean | null }[] = [];
  for (const t of version.spec.tests ?? []) {
    const event = testEvent(t, tenant, version.spec);
    const starts = startsOn(version.spec, event);
    // Decided without a run: nothing to have run first, nothing stored to read.
    if (decidedByStart(t, starts)) {
      out.push({ name: t.name, passed: startResult(t.name, starts, t).passed });
      continue;
    }
    const test = testRef(t.name, t, tenant);
    const runId = d.engine.testRunId(version, event, test);
    const run = await d.store.runs.getRun(tenant, runId);
    if (!run) {
      out.push({ name: t.name, runId, passed: null });
      continue;
    }
    out.push({
      name: t.name,
      runId,
      passed: result(t.name, runId, false, await entriesOf(d.engine, tenant, runId), t, starts).passed,
    });
  }
  return out;
}
