/**
 * The parts of a spec that speak about its lifecycle rather than its walk (docs/lifecycle.md):
 *
 * - `tests:` named events with expectations, run in simulated mode by `keel test` (TESTING) and
 *   counted by the gate to SHADOW;
 * - `promotion:` gate thresholds for this workflow, which may only make the tenant's stricter;
 * - `simulation:` how simulated runs treat `read` tools (called for real by default).
 *
 * Shapes and validation only: problems go to the spec checker with their field path; nothing here
 * runs a test or judges a gate.
 */

import { INSTANT_EXAMPLE, instantMessage, instantProblem } from '../instant.ts';
import { checkJsonValue } from './check-json-value.ts';
import type { ScheduleSpec } from './schedule-trigger.ts';
import {
  checkKeys,
  expectMapping,
  field,
  type Obj,
  readPositiveInt,
  readString,
  type SpecChecker,
} from './spec-checker.ts';
import { describeValue } from './spec-problem.ts';
import { readTestFire, type TestFire } from './test-fire.ts';
import { parseDuration } from './wait-step.ts';

/** The event a test starts its run with; `id` defaults to `test-<name>`, `time` to TEST_EVENT_TIME. */
export interface SpecTestEvent {
  id?: string;
  type: string;
  source?: string;
  subject?: string;
  payload?: Record<string, unknown>;
  time?: string;
}

/** The final statuses a simulated run can end in. */
export const TEST_STATUSES = ['completed', 'refused', 'failed'] as const;
export type TestStatus = (typeof TEST_STATUSES)[number];

/**
 * What a test expects of its run; each given expectation is checked, the rest are not. Every test
 * expects its event to start the version (one of its triggers matches) unless it says
 * `starts: false`: then it expects that no trigger matches, and nothing of a run can be expected.
 */
export interface TestExpectations {
  /** Whether the version starts a run on the test's event (default: it does). */
  starts?: boolean;
  /** The run's final status. */
  status?: TestStatus;
  /** Exactly the steps the run reached (got a decision), in order. */
  steps?: string[];
  /** The code of the refusal the run ended with (`spend_cap_exceeded`, `policy_denied`, ...). */
  refusal?: string;
  /** Per step, argument values its proposal must carry (only the fields named are compared). */
  args?: Record<string, Record<string, unknown>>;
  /** Exactly the steps that would wait for a person's approval, in order. */
  approvals?: string[];
}

export interface SpecTest {
  name: string;
  /** The event the test's run starts from; absent exactly when it starts from a schedule's fire. */
  event?: SpecTestEvent;
  /**
   * The schedule fire the test's run starts from, instead of an event (test-fire.ts): the same
   * canonical `schedule.fired` event, content-derived id included, the scheduler emits for it.
   */
  fires?: TestFire;
  /**
   * What a person would decide where the run would wait (default approve); `none`: nobody answers,
   * so a step's approval deadline decides, in virtual time (docs/governance.md).
   */
  approvals?: 'approve' | 'deny' | 'none';
  /**
   * Where the test's virtual clock starts (an RFC 3339 instant): every entry of its run is stamped
   * by it, and a wait advances it to the wait's fire time at once (docs/flow.md). A test of a
   * schedule's fire (`fires`) starts at the fire's instant when it gives none.
   */
  clock?: string;
  /**
   * Events that arrive while the test's run is walked, each `at` a duration after the run starts
   * (its clock), for the run's waits for events (docs/flow.md): a 48h wait with a reply at 2h runs
   * in milliseconds.
   */
  arrives?: { at: string; event: SpecTestEvent }[];
  expect: TestExpectations;
}

/** Gate thresholds a spec may set; each only counts where it is stricter than the tenant's. */
export interface PromotionSpec {
  shadow?: { minTests?: number };
  live?: { minComparisons?: number; minAgreement?: number; replayRuns?: number };
  autonomous?: { minLiveRuns?: number; windowDays?: number };
}

export interface SimulationSpec {
  /** `live` (default): a simulated run calls read tools for real; `simulated`: their simulate answers. */
  reads?: 'live' | 'simulated';
}

/** When a test event gives no time: fixed, so the same test always names the same run. */
export const TEST_EVENT_TIME = '2000-01-01T00:00:00Z';

const TEST_KEYS = ['name', 'event', 'fires', 'approvals', 'clock', 'arrives', 'expect'] as const;
const ARRIVAL_KEYS = ['at', 'event'] as const;
const TEST_EVENT_KEYS = ['id', 'type', 'source', 'subject', 'payload', 'time'] as const;
const EXPECT_KEYS = ['starts', 'status', 'steps', 'refusal', 'args', 'approvals'] as const;
/** The expectations about a run, which a test of an event that starts none (`starts: false`) cannot have. */
const RUN_EXPECTATIONS = ['status', 'steps', 'refusal', 'args', 'approvals'] as const;
const TEST_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,99}$/;

function readNames(c: SpecChecker, obj: Obj, path: (string | number)[], known: ReadonlySet<string>) {
  const raw = field(obj, path[path.length - 1] as string);
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) {
    c.report(path, `expected a list of step names, got ${describeValue(raw)}`);
    return undefined;
  }
  const out: string[] = [];
  raw.forEach((n, i) => {
    if (typeof n !== 'string' || !known.has(n))
      c.report(
        [...path, i],
        `expected a step of this spec (${[...known].join(', ')}), got ${describeValue(n)}`,
      );
    else out.push(n);
  });
  return out;
}

function readExpect(c: SpecChecker, raw: unknown, path: (string | number)[], steps: ReadonlySet<string>) {
  const obj = expectMapping(c, raw, path);
  if (!obj) return undefined;
  checkKeys(c, obj, path, EXPECT_KEYS);
  const out: TestExpectations = {};
  const starts = field(obj, 'starts');
  if (starts !== undefined) {
    if (typeof starts === 'boolean') out.starts = starts;
    else c.report([...path, 'starts'], `expected true or false, got ${describeValue(starts)}`);
  }
  const status = field(obj, 'status');
  if (status !== undefined) {
    if (typeof status === 'string' && (TEST_STATUSES as readonly string[]).includes(status))
      out.status = status as TestStatus;
    else
      c.report(
        [...path, 'status'],
        `expected one of ${TEST_STATUSES.join(', ')}, got ${describeValue(status)}`,
      );
  }
  const reached = readNames(c, obj, [...path, 'steps'], steps);
  if (reached) out.steps = reached;
  const refusal = readString(c, obj, [...path, 'refusal'], { what: 'a refusal code', optional: true });
  if (refusal !== undefined) out.refusal = refusal;
  const approvals = readNames(c, obj, [...path, 'approvals'], steps);
  if (approvals) out.approvals = approvals;
  const args = field(obj, 'args');
  if (args !== undefined) {
    const byStep = expectMapping(c, args, [...path, 'args']);
    if (byStep) {
      const checked: Record<string, Record<string, unknown>> = {};
      for (const [step, want] of Object.entries(byStep)) {
        if (!steps.has(step)) {
          c.report([...path, 'args', step], `expected a step of this spec (${[...steps].join(', ')})`);
          continue;
        }
        const fields = expectMapping(c, want, [...path, 'args', step]);
        if (fields)
          checked[step] = checkJsonValue(c, fields, [...path, 'args', step]) as Record<string, unknown>;
      }
      out.args = checked;
    }
  }
  if (Object.keys(out).length === 0 && c.found === 0)
    c.report(path, `expected at least one of ${EXPECT_KEYS.join(', ')}`);
  // No run starts, so nothing of a run can be expected of it.
  const ofRun = RUN_EXPECTATIONS.filter((k) => field(obj, k) !== undefined);
  if (starts === false && ofRun.length > 0)
    c.report(
      [...path, 'starts'],
      `starts: false says the event starts no run, so ${ofRun.join(', ')} cannot be expected of one; drop ${ofRun.length === 1 ? 'it' : 'them'} or starts`,
    );
  return out;
}

/** `tests[i].arrives`: a list of `{at: <duration>, event: <test event>}`, checked strictly. */
function readArrivals(
  c: SpecChecker,
  raw: unknown,
  path: (string | number)[],
): { at: string; event: SpecTestEvent }[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) {
    c.report(path, `expected a list of arrivals ({at: 2h, event: {...}}), got ${describeValue(raw)}`);
    return undefined;
  }
  const before = c.found;
  const out: { at: string; event: SpecTestEvent }[] = [];
  raw.forEach((a, j) => {
    const obj = expectMapping(c, a, [...path, j]);
    if (!obj) return;
    checkKeys(c, obj, [...path, j], ARRIVAL_KEYS);
    const at = field(obj, 'at');
    const d = parseDuration(at);
    if (at === undefined) c.missing([...path, j, 'at'], 'a duration after the run starts (2h)');
    else if ('problem' in d && at !== '0s') c.report([...path, j, 'at'], d.problem);
    const ev = field(obj, 'event');
    if (ev === undefined) c.missing([...path, j, 'event'], 'an event (type, subject, payload, ...)');
    const event = ev === undefined ? undefined : readTestEvent(c, ev, [...path, j, 'event']);
    if (event && typeof at === 'string') out.push({ at, event });
  });
  return c.found > before ? undefined : out;
}

function readTestEvent(c: SpecChecker, raw: unknown, path: (string | number)[]): SpecTestEvent | undefined {
  const obj = expectMapping(c, raw, path);
  if (!obj) return undefined;
  checkKeys(c, obj, path, TEST_EVENT_KEYS);
  const type = readString(c, obj, [...path, 'type'], { what: 'an event type' });
  const out: SpecTestEvent = { type: type ?? '' };
  for (const k of ['id', 'source', 'subject'] as const) {
    const v = readString(c, obj, [...path, k], { what: 'a string', optional: true, allowEmpty: k !== 'id' });
    if (v !== undefined) out[k] = v;
  }
  const time = readString(c, obj, [...path, 'time'], { what: 'an RFC 3339 instant', optional: true });
  // RFC 3339, the calendar included (core/instant.ts): 2026-02-30 is not a time.
  const badTime = time === undefined ? undefined : instantMessage('time', time);
  if (badTime) c.report([...path, 'time'], badTime.slice('time: '.length));
  else if (time !== undefined) out.time = time;
  const payload = field(obj, 'payload');
  if (payload !== undefined) {
    const p = expectMapping(c, payload, [...path, 'payload']);
    if (p) out.payload = checkJsonValue(c, p, [...path, 'payload']) as Record<string, unknown>;
  }
  return type === undefined ? undefined : out;
}

/**
 * `tests:` — a list of named tests; names are unique. Steps named must be the spec's own; a test
 * starts from an `event` or from a fire of one of the spec's `schedules` (`fires`), never both.
 */
export function readTests(
  c: SpecChecker,
  top: Obj,
  stepNames: readonly string[],
  schedules: readonly ScheduleSpec[] = [],
): SpecTest[] | undefined {
  const raw = field(top, 'tests');
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) {
    c.report(['tests'], `expected a list of tests (name, event, expect), got ${describeValue(raw)}`);
    return undefined;
  }
  const steps = new Set(stepNames);
  const names = new Set<string>();
  const out: SpecTest[] = [];
  raw.forEach((t, i) => {
    const obj = expectMapping(c, t, ['tests', i]);
    if (!obj) return;
    checkKeys(c, obj, ['tests', i], TEST_KEYS);
    const name = readString(c, obj, ['tests', i, 'name'], {
      what: 'a name of letters, digits, spaces, ".", "_" or "-" (at most 100)',
      pattern: TEST_NAME,
    });
    if (name !== undefined && names.has(name))
      c.report(['tests', i, 'name'], `duplicate test name "${name}"`);
    if (name !== undefined) names.add(name);
    const event = field(obj, 'event');
    const firesRaw = field(obj, 'fires');
    if (event === undefined && firesRaw === undefined)
      c.missing(
        ['tests', i, 'event'],
        'an event (type, payload, ...), or fires: the instant a schedule of this spec fires at',
      );
    if (event !== undefined && firesRaw !== undefined)
      c.report(
        ['tests', i, 'fires'],
        'a test starts from an event or from a schedule fire, not both: drop event or fires',
      );
    const ev = event === undefined ? undefined : readTestEvent(c, event, ['tests', i, 'event']);
    const fires =
      firesRaw === undefined ? undefined : readTestFire(c, firesRaw, ['tests', i, 'fires'], schedules);
    const approvals = field(obj, 'approvals');
    if (approvals !== undefined && approvals !== 'approve' && approvals !== 'deny' && approvals !== 'none')
      c.report(['tests', i, 'approvals'], `expected approve, deny or none, got ${describeValue(approvals)}`);
    const clock = field(obj, 'clock');
    const clockProblem =
      clock === undefined ? undefined : typeof clock === 'string' ? instantProblem(clock) : 'not a string';
    if (clockProblem !== undefined)
      c.report(
        ['tests', i, 'clock'],
        `expected an RFC 3339 instant like ${INSTANT_EXAMPLE}, got ${describeValue(clock)}: ${clockProblem}`,
      );
    const arrives = readArrivals(c, field(obj, 'arrives'), ['tests', i, 'arrives']);
    const expect = field(obj, 'expect');
    if (expect === undefined)
      c.missing(['tests', i, 'expect'], 'expectations (starts, status, steps, refusal, args, approvals)');
    const ex = expect === undefined ? undefined : readExpect(c, expect, ['tests', i, 'expect'], steps);
    if (name !== undefined && (ev || fires) && ex)
      out.push({
        name,
        ...(ev ? { event: ev } : {}),
        ...(fires ? { fires } : {}),
        ...(approvals === 'approve' || approvals === 'deny' || approvals === 'none' ? { approvals } : {}),
        ...(typeof clock === 'string' && clockProblem === undefined ? { clock } : {}),
        ...(arrives ? { arrives } : {}),
        expect: ex,
      });
  });
  return out;
}

const PROMOTION_KEYS = ['shadow', 'live', 'autonomous'] as const;
const GATE_KEYS = {
  shadow: ['minTests'],
  live: ['minComparisons', 'minAgreement', 'replayRuns'],
  autonomous: ['minLiveRuns', 'windowDays'],
} as const;

/** `promotion:` — stricter gate thresholds for this workflow (docs/lifecycle.md). */
export function readPromotion(c: SpecChecker, top: Obj): PromotionSpec | undefined {
  const raw = field(top, 'promotion');
  return raw === undefined ? undefined : readGates(c, raw, ['promotion']);
}

/**
 * Gate thresholds (`shadow`, `live`, `autonomous`, each partial) at `path`: a spec's `promotion:`
 * section, or a whole gates file (`keel --gates`, at the root).
 */
export function readGates(
  c: SpecChecker,
  raw: unknown,
  path: (string | number)[],
): PromotionSpec | undefined {
  const obj = expectMapping(c, raw, path);
  if (!obj) return undefined;
  checkKeys(c, obj, path, PROMOTION_KEYS);
  const out: PromotionSpec = {};
  for (const to of PROMOTION_KEYS) {
    const gate = field(obj, to);
    if (gate === undefined) continue;
    const g = expectMapping(c, gate, [...path, to]);
    if (!g) continue;
    checkKeys(c, g, [...path, to], GATE_KEYS[to]);
    const read: Record<string, number> = {};
    for (const k of GATE_KEYS[to]) {
      if (field(g, k) === undefined) continue;
      if (k === 'minAgreement') {
        const v = field(g, k);
        if (typeof v === 'number' && v >= 0 && v <= 1) read[k] = v;
        else
          c.report([...path, to, k], `expected a share from 0 to 1 (0.95 is 95%), got ${describeValue(v)}`);
      } else {
        const v = readPositiveInt(c, g, [...path, to, k], 'a positive whole number');
        if (v !== undefined) read[k] = v;
      }
    }
    (out as Record<string, unknown>)[to] = read;
  }
  return out;
}

/** `simulation:` — `reads: live | simulated`. */
export function readSimulation(c: SpecChecker, top: Obj): SimulationSpec | undefined {
  const raw = field(top, 'simulation');
  if (raw === undefined) return undefined;
  const obj = expectMapping(c, raw, ['simulation']);
  if (!obj) return undefined;
  checkKeys(c, obj, ['simulation'], ['reads']);
  const reads = field(obj, 'reads');
  if (reads === undefined) return {};
  if (reads !== 'live' && reads !== 'simulated') {
    c.report(['simulation', 'reads'], `expected live or simulated, got ${describeValue(reads)}`);
    return undefined;
  }
  return { reads };
}
