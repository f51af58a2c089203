/**
 * Where a step sends things, said in the words people route with: a team or queue a tool's `enum`
 * lists ("tier 2", "tier-1 queue", "tier two", "tier1", "the billing queue" for `team: [tier-1,
 * tier-2, billing]`), and a chat channel (`#triage` for an argument whose pattern starts with `#`,
 * or one named `channel`). Each becomes a value for those arguments (`ctx.argQuotes`), read before
 * the other readers, so fill-args.ts gives it to the step it is said with.
 *
 * A clause that names such a value and no action of its own ("urgent tix -> tier 2", "drop it in
 * the tier-1 queue", "send it to tier-2", "give tier 1 three days to respond") is a call of the one
 * tool that takes it (`routedTool`); a clause that only says a time for an argument that counts it
 * ("needs a response within 2hrs", "24h response target") adds nothing but that value, which goes
 * to the step that takes it (`isTimeOnly`). A single-word value said plainly ("billing") is left
 * to the other readers: it may be a test of the event ("billing access requests").
 */
import type { ToolDescriptor } from '../../tools/tool-descriptor.ts';
import { FILLER, UNITS } from '../request-words.ts';
import type { Clause } from './read-clauses.ts';
import { timedArgs } from './read-durations.ts';
import type { ArgSchema, RequestContext } from './request-context.ts';

const props = (t: ToolDescriptor) => (t.args.properties ?? {}) as Record<string, ArgSchema>;

/** Nouns a team or queue value is said with ("the tier-1 queue", "billing team"). */
const ROUTE_NOUNS = ['queue', 'team', 'desk', 'group', 'line', 'pool'];

/** The spoken forms of an enum value: "tier-2" -> tier 2, tier2, tier two, tier-two. */
function spoken(value: string): string | undefined {
  const m = /^([a-z]+)[-_ ]?([0-9]{1,2})$/.exec(value.toLowerCase());
  if (!m) return undefined;
  const n = Number(m[2]);
  const word = n >= 1 && n <= 12 ? `|${UNITS[n]}` : '';
  return String.raw`${m[1]}[-_ ]?(?:${m[2]}${word})`;
}

/** Marks routes and channels in `lower` / `raw` (see the file's comment). */
export function readRoutes(lower: string, raw: string, ctx: RequestContext): { lower: string; raw: string } {
  let l = lower;
  let r = raw;
  const mark = (at: number, end: number, value: string, args: readonly string[]): boolean => {
    const digits = String(ctx.quotes.length);
    if (digits.length + 3 > end - at) return false;
    const m = `"q${digits.padStart(end - at - 3, '0')}"`;
    ctx.quotes.push(value);
    ctx.argQuotes.set(ctx.quotes.length - 1, { args, said: raw.slice(at, end) });
    l = l.slice(0, at) + m + l.slice(end);
    r = r.slice(0, at) + m + r.slice(end);
    return true;
  };
  // Values an enum lists, by value, with the arguments that list it and the nouns they go with.
  const values = new Map<string, { args: Set<string>; nouns: Set<string> }>();
  const channels = new Map<string, RegExp | undefined>();
  for (const t of ctx.tools) {
    const said = `${t.name} ${t.description}`.toLowerCase();
    for (const [name, s] of Object.entries(props(t))) {
      if (Array.isArray(s.enum)) {
        for (const v of s.enum) {
          if (typeof v !== 'string') continue;
          const e = values.get(v) ?? { args: new Set<string>(), nouns: new Set<string>() };
          e.args.add(name);
          for (const noun of ROUTE_NOUNS) if (said.includes(noun) || name.includes(noun)) e.nouns.add(noun);
          values.set(v, e);
        }
      } else if (
        s.type === 'string' &&
        ((typeof s.pattern === 'string' && s.pattern.startsWith('^#')) || name === 'channel')
      ) {
        let re: RegExp | undefined;
        try {
          re = typeof s.pattern === 'string' ? new RegExp(s.pattern, 'u') : undefined;
        } catch {
          re = undefined;
        }
        channels.set(name, re);
      }
    }
  }
  // "#triage": a channel, for the arguments it fits.
  if (channels.size > 0)
    for (const m of [...l.matchAll(/(?<![a-z0-9_])#[a-z0-9][a-z0-9_-]*/g)].reverse()) {
      const args = [...channels].filter(([, re]) => re === undefined || re.test(m[0])).map(([n]) => n);
      if (args.length > 0) mark(m.index, m.index + m[0].length, m[0], args);
    }
  // "tier 2", "the tier-1 queue", "billing queue": a value of a route.
  for (const [v, e] of values) {
    // Only a route's values: an enum of a tool or argument that speaks of a queue, team, desk...
    // ("sev1" is an incident's severity: left to the readers of tests and arguments).
    if (e.nouns.size === 0) continue;
    const forms = spoken(v);
    // ("tier one's queue": the queue is the value's.)
    const nouns = e.nouns.size > 0 ? String.raw`(?:(?:'s)?\s+(?:${[...e.nouns].join('|')})s?)` : undefined;
    const plain = v.toLowerCase().replace(/[^a-z0-9]+/g, '[-_ ]');
    const re =
      forms !== undefined
        ? new RegExp(String.raw`(?<![a-z0-9"-])(?:${forms})\b${nouns ? `${nouns}?` : ''}(?![-a-z0-9])`, 'g')
        : nouns
          ? new RegExp(String.raw`(?<![a-z0-9"-])${plain}${nouns}\b`, 'g')
          : undefined;
    if (!re) continue;
    for (const m of [...l.matchAll(re)].reverse())
      if (mark(m.index, m.index + m[0].length, v, [...e.args]))
        ctx.assumptions.push(
          `"${raw.slice(m.index, m.index + m[0].length)}" is read as ${[...e.args].join(' / ')} ${v}.`,
        );
  }
  return { lower: l, raw: r };
}

/** The routes a clause names: the tools that take the enum values marked in it. */
function routesIn(c: Clause, ctx: RequestContext): ToolDescriptor[] {
  const tools = new Set<ToolDescriptor>();
  for (const m of c.text.matchAll(/"q([0-9]+)"/g)) {
    const target = ctx.argQuotes.get(Number(m[1]));
    const value = ctx.quotes[Number(m[1])];
    if (!target || target.args.length === 0) continue;
    for (const t of ctx.tools)
      for (const n of target.args) {
        const e = props(t)[n]?.enum;
        if (Array.isArray(e) && e.includes(value)) tools.add(t);
      }
  }
  return [...tools];
}

/**
 * The one tool a clause routes to ("tier 2", "drop it in the tier-1 queue"), when it names a
 * value of that tool's enum and only that tool takes it; undefined otherwise.
 */
export function routedTool(c: Clause, ctx: RequestContext): ToolDescriptor | undefined {
  // A route is where something goes: never a tool that destroys or moves money ("chargebacks:",
  // a value of freeze_seller's reason, had frozen every seller it was said of).
  const tools = routesIn(c, ctx).filter((t) => !t.destructive && t.cost?.fromArg === undefined);
  if (tools.length !== 1) return undefined;
  // Only words of routing: a word the route would not read ("enterprise plan tickets go to tier 2")
  // is never dropped, so such a clause stays for the other readers (and is asked about).
  const words = c.text
    .replace(/"q[0-9]+"/g, ' ')
    .split(/[^a-z0-9']+/)
    .filter(Boolean);
  return words.every((w) => ROUTE_WORDS.has(w) || TIME_WORDS.has(w) || FILLER.has(w)) ? tools[0] : undefined;
}

/** Verbs and words that say where something goes, and nothing else. */
export const ROUTE_WORDS = new Set(
  'go goes send drop put move route assign hand pass bump push give queue queues team teams desk straight directly over off'.split(
    ' ',
  ),
);

/** Words a clause that only says a response time may hold beside the time itself. */
export const TIME_WORDS = new Set(
  'a an the it them needs need needed with within in to respond response responses reply replies answer target targets sla slas first time of and for valid expiring expires expire expiry lasting'.split(
    ' ',
  ),
);

/**
 * A clause that only says a time for an argument that counts it ("needs a response within 2hrs",
 * "24h response target"): the numbers of the marked values it holds, else undefined.
 */
export function timeOnly(c: Clause, ctx: RequestContext): number[] | undefined {
  const timed = timedArgs(ctx.tools);
  if (!timed) return undefined;
  const marks = [...c.text.matchAll(/"q([0-9]+)"/g)].map((m) => Number(m[1]));
  if (marks.length === 0) return undefined;
  if (!marks.every((n) => ctx.argQuotes.get(n)?.args.some((a) => timed.names.includes(a)))) return undefined;
  const words = c.text
    .replace(/"q[0-9]+"/g, ' ')
    .split(/[^a-z0-9']+/)
    .filter(Boolean);
  return words.every((w) => TIME_WORDS.has(w)) ? marks : undefined;
}
