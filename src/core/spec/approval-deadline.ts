/**
 * A deadline on a tool step's approval, declared in the reviewed spec (the document a person
 * approved, so who may wait how long is part of what they approved):
 *
 *   approval: { timeout: 24h, then: deny, remind: 4h }
 *   approval: { timeout: 24h, then: { escalate: finance-leads, timeout: 24h } }
 *
 * `timeout` (a duration) runs from the request; `then` says what happens when nobody decided by
 * then: `deny` (the step is refused, `approval_timeout`) or `{ escalate: <group> }` (the approval
 * now waits for that group, with a new `timeout` after which it is denied, if declared). `remind`
 * (a duration shorter than the timeout) records a reminder every so often until the deadline.
 * A step whose tool never needs approval may declare it: it never applies. The shape, its strict
 * check (every problem named by its field path) and the arithmetic of when what falls due live
 * here. Pure: nothing here reads a clock.
 */
import type { PathSegment } from './read-path.ts';
import { checkKeys, expectMapping, field, isMapping, type SpecChecker } from './spec-checker.ts';
import { describeValue } from './spec-problem.ts';
import { parseDuration } from './wait-step.ts';

/** What happens when an approval's deadline passes with nobody's decision. */
export type ApprovalThen = 'deny' | { readonly escalate: string; readonly timeout?: string };

/** A step's declared approval deadline. */
export interface ApprovalDeadlineSpec {
  readonly timeout: string;
  readonly then: ApprovalThen;
  readonly remind?: string;
}

const APPROVAL_KEYS = ['timeout', 'then', 'remind'] as const;
const ESCALATE_KEYS = ['escalate', 'timeout'] as const;
/** An approver group's name: a declared label (`finance-leads`), recorded and shown, never resolved here. */
export const GROUP_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** Checks a step's `approval` at `path`; undefined when absent or it has problems. */
export function checkApprovalDeadline(
  c: SpecChecker,
  raw: unknown,
  path: readonly PathSegment[],
): ApprovalDeadlineSpec | undefined {
  if (raw === undefined) return undefined;
  const at = [...path];
  const a = expectMapping(c, raw, at);
  if (!a) return undefined;
  const before = c.found;
  checkKeys(c, a, at, APPROVAL_KEYS);
  const timeout = duration(c, field(a, 'timeout'), [...at, 'timeout'], true);
  const remind = duration(c, field(a, 'remind'), [...at, 'remind'], false);
  if (timeout !== undefined && remind !== undefined && remind.ms >= timeout.ms)
    c.report(
      [...at, 'remind'],
      `a reminder every ${remind.text} never comes before the timeout ${timeout.text}`,
    );
  const then = checkThen(c, field(a, 'then'), [...at, 'then']);
  if (c.found > before || timeout === undefined || then === undefined) return undefined;
  return { timeout: timeout.text, then, ...(remind ? { remind: remind.text } : {}) };
}

function checkThen(c: SpecChecker, raw: unknown, at: PathSegment[]): ApprovalThen | undefined {
  if (raw === undefined) {
    c.missing(at, 'deny, or { escalate: <approver group> }');
    return undefined;
  }
  if (raw === 'deny') return 'deny';
  if (!isMapping(raw)) {
    c.report(at, `expected deny or { escalate: <approver group> }, got ${describeValue(raw)}`);
    return undefined;
  }
  checkKeys(c, raw, at, ESCALATE_KEYS);
  const group = field(raw, 'escalate');
  if (typeof group !== 'string' || !GROUP_NAME.test(group)) {
    c.report(
      [...at, 'escalate'],
      `expected an approver group's name (lower-case letters, digits, . _ -), got ${describeValue(group)}`,
    );
    return undefined;
  }
  const timeout = duration(c, field(raw, 'timeout'), [...at, 'timeout'], false);
  if (field(raw, 'timeout') !== undefined && timeout === undefined) return undefined;
  return { escalate: group, ...(timeout ? { timeout: timeout.text } : {}) };
}

function duration(
  c: SpecChecker,
  raw: unknown,
  at: PathSegment[],
  required: boolean,
): { text: string; ms: number } | undefined {
  if (raw === undefined) {
    if (required) c.missing(at, 'a duration (24h, 90m, 2d)');
    return undefined;
  }
  const d = parseDuration(raw);
  if ('problem' in d) {
    c.report(at, d.problem);
    return undefined;
  }
  return { text: raw as string, ms: d.ms };
}

/** The milliseconds of a duration the check accepted. */
export function durationMs(text: string): number {
  const d = parseDuration(text);
  if ('problem' in d) throw new Error(`not a checked duration: ${text}`);
  return d.ms;
}

/** Where an approval stands on its deadline, as folded from the ledger (RunState.approval). */
export interface ApprovalClock {
  /** When the current deadline passes (ms); undefined: no deadline stands. */
  readonly deadlineMs?: number;
  /** When the last reminder, escalation or request was recorded (ms): reminders count from it. */
  readonly sinceMs: number;
  /** Whether the approval was escalated already (a second deadline denies). */
  readonly escalated: boolean;
}

/** What falls due next for an approval: a reminder, or the deadline's consequence; and when (ms). */
export type ApprovalDue =
  | { readonly what: 'remind'; readonly atMs: number }
  | { readonly what: 'deny'; readonly atMs: number }
  | { readonly what: 'escalate'; readonly atMs: number; readonly to: string; readonly timeout?: string };

/**
 * The next thing due for an approval under `spec` from `clock`, or undefined (nothing ever will:
 * no deadline stands). A reminder is due every `remind` after the last recorded one, if that is
 * before the deadline; the deadline's consequence is `then` the first time, deny after an escalation.
 */
export function nextApprovalDue(spec: ApprovalDeadlineSpec, clock: ApprovalClock): ApprovalDue | undefined {
  const deadline = clock.deadlineMs;
  if (deadline === undefined) return undefined;
  if (spec.remind !== undefined) {
    const r = clock.sinceMs + durationMs(spec.remind);
    if (r < deadline) return { what: 'remind', atMs: r };
  }
  const then = spec.then;
  if (clock.escalated || then === 'deny') return { what: 'deny', atMs: deadline };
  return {
    what: 'escalate',
    atMs: deadline,
    to: then.escalate,
    ...(then.timeout ? { timeout: then.timeout } : {}),
  };
}
