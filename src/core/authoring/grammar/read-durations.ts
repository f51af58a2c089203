/**
 * Durations said for a tool argument that counts time: "for 30 days", "a week", "a fortnight",
 * "with a four hour target", "within 48 hours", "1 hour to respond". An argument counts time when
 * its name ends in its unit (`duration_days`, `respond_within_hours`, `timeout_minutes`) and it is a
 * number. A duration is read for it only when every such argument of the catalog counts in one unit
 * and the duration is a whole number of that unit ("a day" is 24 for hours, "36 hours" is no whole
 * number of days); a duration after a bound ("more than thirty days", "up to a week") is a test, not
 * a value, and stays for the readers of tests (and so is asked about). Months and business days are
 * not read: they are no fixed number of days.
 */
import type { ToolDescriptor } from '../../tools/tool-descriptor.ts';
import { numberWord } from '../request-words.ts';
import { numberWordsValue } from './read-spelling.ts';

/** Minutes in each unit a duration is said in. */
const MINUTES: Readonly<Record<string, number>> = {
  minute: 1,
  min: 1,
  hour: 60,
  hr: 60,
  h: 60,
  day: 1_440,
  week: 10_080,
  fortnight: 20_160,
};

/** The unit an argument counts in, from the end of its name; undefined: it counts no time. */
export function durationUnit(name: string): string | undefined {
  const m = /(?:^|_)(minutes?|mins?|hours?|hrs?|days?|weeks?)$/.exec(name);
  return m ? m[1]!.replace(/s$/, '') : undefined;
}

/**
 * The arguments of the catalog's tools that count time, when they all count in one unit; undefined
 * when none does, or they count in several (then no duration is read: which one would be a guess).
 */
export function timedArgs(tools: readonly ToolDescriptor[]): { unit: string; names: string[] } | undefined {
  const byUnit = new Map<string, Set<string>>();
  for (const tool of tools)
    for (const [name, s] of Object.entries(
      (tool.args.properties ?? {}) as Record<string, { type?: string }>,
    )) {
      const unit = durationUnit(name);
      if (unit && (s.type === 'integer' || s.type === 'number'))
        byUnit.set(unit, (byUnit.get(unit) ?? new Set()).add(name));
    }
  const [only] = byUnit;
  return only && byUnit.size === 1 ? { unit: only[0], names: [...only[1]] } : undefined;
}

/** Words that make the duration after them a bound ("more than 30 days"): a test, not a value. */
const BOUND_WORDS = new Set([
  'than',
  'over',
  'under',
  'above',
  'below',
  'exceeding',
  'least',
  'most',
  'to',
  'max',
  'maximum',
  'minimum',
  'past',
  'longer',
  'shorter',
]);

export interface DurationSpan {
  /** The index of its first and last word in `words`. */
  readonly from: number;
  readonly to: number;
  /** The value in the arguments' unit. */
  readonly value: number;
}

/**
 * The durations in `words` (a request's words, in order) that give a value to the arguments
 * `unit` counts in: "<number> <unit>", "<number>-<unit>", "a|an|one <unit>", "a fortnight".
 */
/** "forty" (40), "forty-eight" or "forty eight" (48), and how many words it took; else undefined. */
function tensOf(w: string, next: string | undefined): { n: number; words: number } | undefined {
  if (!/^[a-z]+ty(?:-[a-z]+)?$/.test(w)) return undefined;
  // (The second word only where it is one to nine in words: numberWordsValue reads only such phrases.)
  const unit = next !== undefined && /^[a-z]+$/.test(next) ? numberWord(next) : undefined;
  const two =
    w.includes('-') || unit === undefined || unit < 1 || unit > 9
      ? undefined
      : numberWordsValue(`${w} ${next}`);
  if (two !== undefined) return { n: two, words: 2 };
  const one = numberWordsValue(w);
  return one === undefined ? undefined : { n: one, words: 1 };
}

export function durationSpans(words: readonly string[], unit: string): DurationSpan[] {
  const per = MINUTES[unit];
  if (per === undefined) return [];
  const out: DurationSpan[] = [];
  for (let i = 0; i < words.length; i++) {
    let n: number | undefined;
    let u: string | undefined;
    let to = i;
    const hyphen = /^([0-9]{1,4})-?(minute|min|hour|hr|h|day|week)s?$/.exec(words[i]!);
    if (hyphen) [n, u] = [Number(hyphen[1]), hyphen[2]];
    else {
      // "forty eight hours", "forty-eight hours", "thirty days": tens and units in words.
      const tens = tensOf(words[i]!, words[i + 1]);
      n = tens?.n ?? (words[i] === 'a' || words[i] === 'an' ? 1 : numberWord(words[i]!));
      const at = i + (tens?.words ?? 1);
      const next = (words[at] ?? '').replace(/s$/, '');
      if (n !== undefined && next in MINUTES) [u, to] = [next, at];
      else if (n === 1 && words[i + 1] === 'fortnight') [u, to] = ['fortnight', i + 1];
      else n = undefined;
    }
    if (n === undefined || u === undefined || n === 0) continue;
    if (BOUND_WORDS.has(words[i - 1] ?? '') || words[i + 1 + (to - i)] === 'or') continue;
    const minutes = n * MINUTES[u]!;
    if (minutes % per !== 0) continue;
    out.push({ from: i, to, value: minutes / per });
    i = to;
  }
  return out;
}
