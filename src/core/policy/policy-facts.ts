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
import { parseInstant, utcMillis } from '../instant.ts';
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

/** A tool's facts, per descriptor (a value, never changed): built on its first proposal. */
const toolFacts = new WeakMap<object, Readonly<Record<string, unknown>>>();

export function policyFacts(input: PolicyInput): Record<string, unknown> {
  const t = input.tool;
  let tool = toolFacts.get(t);
  if (!tool) {
    tool = Object.freeze({
      name: t.name,
      destructive: t.destructive,
      effect: t.effect,
      scopes: Object.freeze([...t.scopes]),
    });
    toolFacts.set(t, tool);
  }
  return {
    args: input.args,
    tool,
    tenant: input.tenant,
    workflow: { id: input.workflow.id, status: input.workflow.status },
    clock: clockFacts(input.clock),
  };
}

const DAY_MS = 86_400_000;

/** Clock facts in UTC, by arithmetic on the instant (no Date): they run for every governed proposal. */
function clockFacts(instant: string): Record<string, unknown> {
  // The clock's own text is its time as is; anything else is normalised through Date.
  const exact = utcMillis(instant);
  const ms = exact ?? parseInstant(instant);
  if (ms === undefined) return {};
  const time = exact !== undefined ? instant : new Date(ms).toISOString();
  const inDay = ((ms % DAY_MS) + DAY_MS) % DAY_MS;
  const days = (ms - inDay) / DAY_MS;
  return {
    time,
    date: time.slice(0, 10),
    hour: Math.floor(inDay / 3_600_000),
    minute: Math.floor(inDay / 60_000) % 60,
    // 1970-01-01 was a Thursday.
    weekday: WEEKDAYS[(((days + 4) % 7) + 7) % 7],
  };
}
