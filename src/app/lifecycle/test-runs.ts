/**
 * TESTING: a version's `tests:` (and events given by hand) run in simulated mode — every check as
 * in a live run, no write or external tool ever acting, nobody asked — and each test's
 * expectations held against what its run decided. Each test run is a normal ledgered run (mode
 * `test`), listed and verifiable like any other, named by its content: running the tests of a
 * version again finds the same runs, and the gate to SHADOW reads them by name.
 */
import type { Entry, EventRecord } from '../../core/ledger/index.ts';
import { checkTest, type ExpectationResult, runDecisions } from '../../core/lifecycle/index.ts';
import { parseEvent } from '../../core/run/index.ts';
import { type SpecTest, TEST_EVENT_TIME } from '../../core/spec/index.ts';
import type { Engine } from '../../engine/index.ts';
import type { Store, VersionRecord } from '../../ports/index.ts';

export interface TestResult {
  readonly name: string;
  readonly runId: string;
  /** The run's final status. */
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

/** The event a spec test starts its run with, for `tenant`. */
export function testEvent(t: SpecTest, tenant: string): EventRecord {
  const e = t.event;
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

function result(
  name: string,
  runId: string,
  created: boolean,
  entries: readonly Entry[],
  test: SpecTest | undefined,
): TestResult {
  const d = runDecisions(entries);
  const refused = d.steps.find((s) => s.outcome === 'refused');
  const base = {
    name,
    runId,
    status: d.status,
    steps: d.steps.map((s) => s.step),
    ...(refused?.code ? { refusal: refused.code } : d.finished?.code ? { refusal: d.finished.code } : {}),
    approvals: d.steps.filter((s) => s.approval).map((s) => s.step),
    created,
  };
  if (!test) return { ...base, passed: d.status !== 'failed', results: [], adhoc: true };
  const verdict = checkTest(test.expect, d);
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
    const { run, created } = await d.engine.startSimulated(version, event, {
      mode: 'test',
      test: { name, approvals: test?.approvals ?? 'approve' },
      walk: 'inline',
    });
    const entries = await entriesOf(d.engine, tenant, run.runId);
    tests.push(result(name, run.runId, created, entries, test));
  };
  for (const t of version.spec.tests ?? []) await one(t.name, testEvent(t, tenant), t);
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
 * failed, or not run (null). Nothing is run here.
 */
export async function testEvidence(
  d: { readonly engine: Engine; readonly store: Store },
  tenant: string,
  version: VersionRecord,
): Promise<{ name: string; runId: string; passed: boolean | null }[]> {
  const out: { name: string; runId: string; passed: boolean | null }[] = [];
  for (const t of version.spec.tests ?? []) {
    const test = { name: t.name, approvals: t.approvals ?? 'approve' } as const;
    const runId = d.engine.testRunId(version, testEvent(t, tenant), test);
    const run = await d.store.getRun(tenant, runId);
    if (!run) {
      out.push({ name: t.name, runId, passed: null });
      continue;
    }
    out.push({
      name: t.name,
      runId,
      passed: result(t.name, runId, false, await entriesOf(d.engine, tenant, runId), t).passed,
    });
  }
  return out;
}
