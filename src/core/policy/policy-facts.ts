/**
 * The facts a policy `when` clause reads, and which paths it may name.
 *
 *   args.<name>...            the proposal's resolved arguments
 *   tool.name | tool.destructive | tool.effect | tool.scopes
 *   tenant                    the run's tenant
 *   workflow.id | workflow.status
 *   clock.time | clock.date | clock.hour | clock.minute | clock.weekday   (UTC)
 *
 * The clock facts are derived from the instant the caller passes in; nothing here reads a clock.
 * An instant that does not parse yields no clock facts, so every comparison on them is false.
 */
import { parseInstant } from '../instant.ts';
import type { ConditionScope } from '../spec/index.ts';
import type { PolicyInput } from './policy.ts';

const FIELDS: Readonly<Record<string, readonly string[] | 'any' | 'scalar'>> = {
  args: 'any',
  tool: ['name', 'destructive', 'effect', 'scopes'],
  tenant: 'scalar',
  workflow: ['id', 'status'],
  clock: ['time', 'date', 'hour', 'minute', 'weekday'],
};

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

export const POLICY_CONDITION_SCOPE: ConditionScope = {
  check(segs) {
    const [root, ...rest] = segs;
    const allowed = root === undefined ? undefined : FIELDS[root];
    if (allowed === undefined) {
      return `unknown field "${segs.join('.')}": fields are args.<name>, tool.<name|destructive|effect|scopes>, tenant, workflow.<id|status> or clock.<time|date|hour|minute|weekday>`;
    }
    if (allowed === 'any')
      return rest.length === 0 ? `"${root}" needs a field, like ${root}.amount_usd` : undefined;
    if (allowed === 'scalar')
      return rest.length > 0 ? `"${root}" is a string and has no field "${rest.join('.')}"` : undefined;
    if (rest.length !== 1 || !allowed.includes(rest[0]!)) {
      return `unknown field "${segs.join('.')}": ${root} has ${allowed.map((f) => `${root}.${f}`).join(', ')}`;
    }
    return undefined;
  },
};

export function policyFacts(input: PolicyInput): Record<string, unknown> {
  return {
    args: input.args,
    tool: {
      name: input.tool.name,
      destructive: input.tool.destructive,
      effect: input.tool.effect,
      scopes: [...input.tool.scopes],
    },
    tenant: input.tenant,
    workflow: { id: input.workflow.id, status: input.workflow.status },
    clock: clockFacts(input.clock),
  };
}

/** An instant as Keel's clock writes it (`Date.toISOString`): read by position, no Date needed. */
const UTC_MS = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{3}Z$/;
/**
 * Weekdays by date, null for a date that does not exist (2026-02-31, which Date would roll over):
 * the date part of recent instants repeats across proposals, so each is checked once.
 */
const weekdays = new Map<string, string | null>();

function weekdayOf(date: string): string | null {
  let weekday = weekdays.get(date);
  if (weekday === undefined) {
    const d = new Date(`${date}T00:00:00Z`);
    weekday =
      Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== date ? null : WEEKDAYS[d.getUTCDay()]!;
    if (weekdays.size >= 64) weekdays.clear();
    weekdays.set(date, weekday);
  }
  return weekday;
}

function clockFacts(instant: string): Record<string, unknown> {
  const m = UTC_MS.exec(instant);
  if (m) {
    const hour = Number(m[2]);
    const minute = Number(m[3]);
    const weekday = hour < 24 && minute < 60 && Number(m[4]) < 60 ? weekdayOf(m[1]!) : null;
    if (weekday) return { time: instant, date: m[1], hour, minute, weekday };
  }
  // Anything else (an offset, no milliseconds, an impossible date or time) takes the Date path.
  const ms = parseInstant(instant);
  if (ms === undefined) return {};
  const d = new Date(ms);
  const time = d.toISOString();
  return {
    time,
    date: time.slice(0, 10),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    weekday: WEEKDAYS[d.getUTCDay()],
  };
}
