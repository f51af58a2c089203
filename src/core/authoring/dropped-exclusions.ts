/**
 * Exclusions a draft would drop: a request that leaves something out ("cancel for non-payment, but
 * not premium plans", "deny it, except tip line alerts", "excluding contractors") drafted with no
 * test that names what it leaves out, and no choice, acts on every event, the left-out ones too. Read on the request as written and the draft as drafted, so
 * it holds whatever compiled it; an exclusion that is a bound, a time or a sign-off ("but not more
 * than $50", "but not before approval"), or an action forbidden (read by negated-actions.ts), is
 * no such exclusion. Pure.
 */
import { isChooseStep, toolSteps } from '../spec/flow-steps.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import type { ToolDescriptor } from '../tools/tool-descriptor.ts';
import { draftTests } from './draft-tests.ts';
import { NUMBER_WORDS } from './grammar/read-spelling.ts';
import { forbidsUnless, NOT_A_BAN } from './negated-actions.ts';
import { requestOwnWords } from './request-own-words.ts';
import { FILLER, isActionVerb, lemmas } from './request-words.ts';
import { type Comparison, comparisonsOf } from './test-comparisons.ts';

/** "but not X", "except (for) X", "excluding X", "other than X", "apart from X", "not for X", ", not X", "unless X". */
const EXCLUSION =
  /(?:\b(?:but not|except(?: for)?|excluding|other than|apart from|aside from|not for|never for|unless)|[,;]\s*not)\s+([^.,;:!?\n]+)/g;

/**
 * The items an exclusion says: the sides of its "or" ("unless" reads "and" itself), or of its list
 * ("except production and payroll"), up to an action said after it ("but not for enterprise
 * customers and tag it refunded": the tag is no item).
 */
function listed(said: string, unless: boolean): string[] {
  if (unless) return said.split(/\s+or\s+/);
  const parts = said.split(/\s+(?:or|and|&)\s+/);
  // (An action with its object: "tag it", "email them"; "chat and email tickets" is two values.)
  const action = parts.findIndex(
    (p, i) =>
      i > 0 &&
      (/^then\b/.test(p) ||
        (isActionVerb(p.split(/\s+/)[0]!) &&
          /^[a-z]+\s+(?:it|them|him|her|the|a|an|their|his|its)\b/.test(p))),
  );
  return action < 0 ? parts : parts.slice(0, action);
}

/**
 * Whether a comparison leaves out the events `said` names: `!=`, a bound, or a yes/no test for the
 * other side of what the words say ("unless autopay is off": `autopay == true`; "unless verified":
 * `verified == false`).
 */
function leavesOut(c: Comparison, said: string): boolean {
  if (typeof c.value !== 'boolean' || (c.op !== '==' && c.op !== '!=')) return c.op !== '==';
  const yes = !/\b(?:off|no|false|not|without|disabled|none|never)\b|\bun[a-z]{3,}|\bnon-?[a-z]/.test(said);
  return (c.op === '==' ? c.value : !c.value) !== yes;
}

/**
 * The first exclusion of `request` no test of the draft leaves out: one no comparison names (a
 * word of it in the field or the value), or one only comparisons that keep it name ("except
 * reason 'wrong item'" drafted as `reason == "wrong item"`: the opposite). Undefined when none.
 */
export function droppedExclusion(
  request: string,
  spec: WorkflowSpec,
  tools: readonly ToolDescriptor[] = [],
): string | undefined {
  if (spec.steps.some((s) => isChooseStep(s))) return undefined;
  const t = requestOwnWords(request, spec);
  const comparisons = draftComparisons(spec);
  // (Each side of an "or" on its own: "unless it's over 1000 or it's a home claim"; and each of a
  // list: "except production and payroll" leaves out both.)
  for (const m of t.matchAll(EXCLUSION))
    for (const part of listed(m[1]!, m[0].startsWith('unless'))) {
      const rest = part.trim();
      // "unless ... or the score is under 85": a test that keeps what it says (`score < 85`) acts on
      // exactly the events the words leave out.
      if (keptThoughLeftOut(rest, comparisons)) return m[0].trim();
      // "unless it came via the tip line and the score is under 50" leaves out the events where both
      // hold: tests of each joined with "and" leave out those where either does. Read only with "or".
      const sides = rest.split(/\s+and\s+/);
      if (
        m[0].startsWith('unless') &&
        sides.length > 1 &&
        sides.every((side) => naming(side, comparisons).length > 0) &&
        !draftTests(spec).some((x) => /\bor\b/.test(x.test))
      )
        return m[0].trim();
      // A bound, a time or a sign-off ("but not more than $50", "except when approved") is read elsewhere.
      // (A negation in it turns it back: "unless the currency is not USD" keeps USD.)
      if (rest === '' || NOT_A_BAN.test(rest) || /\b(?:not|isn'?t|aren'?t|no)\b/.test(rest)) continue;
      // ", not by cheque", ", not immediately": another value for an argument a step is given.
      if (m[0].startsWith(',') && contrasts(rest, m.index, t, spec, tools)) continue;
      // Read where a comparison that leaves out names one of its words ("but not home claims").
      // "don't build it unless identity is verified": only those, read by a comparison that keeps them.
      const doubled = m[0].startsWith('unless') && forbidsUnless(t.slice(0, m.index));
      if (!naming(rest, comparisons).some((c) => leavesOut(c, rest) !== doubled)) return m[0].trim();
    }
  return undefined;
}

/**
 * A number said as a bound: "under 85", "more than 14", "5+", "at least 3", "85 or more"; or said in
 * words ("over a grand", "under fifty", never "under review"), whose number is not read here (any
 * number it is).
 */
const SAID_BOUND = new RegExp(
  String.raw`\b(?:(under|below|less than|fewer than|lower than|over|above|more than|greater than|higher than|at least|at most|no more than)\s+(?:\$?([0-9][0-9,]*(?:\.[0-9]+)?)|(?:a |an )?(?:grand|${NUMBER_WORDS})\b)|\$?([0-9][0-9,]*(?:\.[0-9]+)?)\s*(\+|or more|or over|or above|or less|or fewer|or under))`,
  'g',
);

/** Whether `said` ("the score is under 85") has a draft comparison on its number pointing its way. */
function keptThoughLeftOut(said: string, comparisons: readonly Comparison[]): boolean {
  for (const b of said.matchAll(SAID_BOUND)) {
    const words = b[1] ?? b[4]!;
    const digits = b[2] ?? b[3];
    const n = digits === undefined ? undefined : Number(digits.replace(/,/g, ''));
    const below = /under|below|less|fewer|lower|at most|no more/.test(words);
    // (The field the words before it name, when they name a number's: "equipment over a grand" names none.)
    const field = naming(said.slice(0, b.index), comparisons)
      .filter((c) => typeof c.value === 'number')
      .map((c) => c.path);
    const same = comparisons.filter(
      (c) =>
        (field.length === 0 || field.includes(c.path)) &&
        (n === undefined ? typeof c.value === 'number' : c.value === n) &&
        (below ? c.op === '<' || c.op === '<=' : c.op === '>' || c.op === '>='),
    );
    if (same.length > 0) return true;
  }
  return false;
}

/** Each comparison of the draft's tests. */
const draftComparisons = (spec: WorkflowSpec) => draftTests(spec).flatMap((t) => comparisonsOf(t.test));

/** Words that name nothing a test could: "regardless of which service fired". */
const NAMES_NOTHING = new Set([
  'which',
  'what',
  'whose',
  'there',
  'they',
  'have',
  'has',
  'had',
  'their',
  'its',
]);

/** The comparisons that name a word of `said`: by their value, or, where no value names one, their field. */
function naming(said: string, comparisons: readonly Comparison[]): Comparison[] {
  const words = said
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 2 && !FILLER.has(w) && !NAMES_NOTHING.has(w));
  const by = (part: (c: Comparison) => string) =>
    comparisons.filter((c) => words.some((w) => lemmas(w).some((l) => l.length > 2 && part(c).includes(l))));
  const byValue = by((c) => String(c.value).toLowerCase());
  return byValue.length > 0 ? byValue : by((c) => c.path.toLowerCase());
}

/** "whether or not there's a police report", "with or without autopay", "regardless of which service fired". */
const NOT_MATTERING =
  /\b(?:whether or not|with or without|regardless of|irrespective of|no matter)\s+([^.,;:!?\n]+)/g;

/**
 * The first thing `request` says does not matter that a test of the draft tests anyway (`police_report
 * == true` for "pay it whether or not there's a police report": it would act on some events only);
 * undefined when none.
 */
export function testedThoughNotMattering(request: string, spec: WorkflowSpec): string | undefined {
  const comparisons = draftComparisons(spec);
  for (const m of requestOwnWords(request, spec).matchAll(NOT_MATTERING))
    if (naming(m[1]!, comparisons).length > 0) return m[0].trim();
  return undefined;
}

/**
 * Whether ", not X" sets another value against one a step is given ("by check, not bank transfer",
 * "at period end, not immediately", "tag it delayed, not lost"): X names a value an argument of a
 * drafted tool lists, or the word before it is the whole of a value a step is given (never a part
 * of one: "cancel for non-payment, not premium" leaves premium plans out).
 */
function contrasts(
  rest: string,
  at: number,
  t: string,
  spec: WorkflowSpec,
  tools: readonly ToolDescriptor[],
): boolean {
  const steps = toolSteps(spec);
  const given = steps.flatMap((s) =>
    Object.values(s.args).flatMap((v) =>
      typeof v === 'string' && !v.includes('{{') ? [v.toLowerCase()] : [],
    ),
  );
  const enums = steps.flatMap((s) =>
    Object.values(
      (tools.find((x) => x.name === s.tool)?.args.properties ?? {}) as Record<string, { enum?: unknown[] }>,
    )
      .flatMap((p) => p.enum ?? [])
      .flatMap((v) =>
        String(v)
          .toLowerCase()
          .split(/[^a-z0-9]+/),
      ),
  );
  const before = /([a-z0-9]+)\W*$/.exec(t.slice(0, at))?.[1];
  if (before !== undefined && given.includes(before)) return true;
  const listed = new Set(enums);
  return rest.split(/[^a-z0-9]+/).some((w) => w.length > 2 && lemmas(w).some((l) => listed.has(l)));
}
