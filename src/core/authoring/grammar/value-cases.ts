/**
 * Cases keyed by the values of one field, each said with its own actions: "search alerts -> sev3.
 * auth alerts -> sev2 and page the primary", "illegal → hide + remove; misinformation → hide
 * only", "urgent -> tag it hot, low -> tag it cold". Each sentence (or part between ";", or comma
 * group with a mark of its own) opens with values of the same field of the event (alternatives
 * joined by "or", "&" or "/"; the event's noun and "only" may stand beside them), then ":" ("->",
 * "→" and "=" read as one), then its actions. Two or more such cases, on as many values, are a
 * choice: a branch per case in the order said (`payload.<field> == "<value>"`, alternatives joined
 * with "or"), and the else said apart ("everything else -> ...") as its else; with none, events
 * with other values run nothing. Read back under Assumed.
 *
 * Only the first case may have a heading before its values ("reported posts: illegal → ..."), and
 * only one that names the event or that the trigger's reader already read. Anything else in the request (words before a later
 * case's values, a sentence that is no case, an "otherwise") leaves the request to the other
 * readers, and what the attempt read is forgotten.
 */
import type { ChooseStepSpec } from '../../spec/flow-steps.ts';
import type { EventShape } from '../compiled-request.ts';
import { type Branch, uniqueNames } from './build-branch.ts';
import { splitClauses } from './read-clauses.ts';
import type { ElseApart } from './read-else-apart.ts';
import { readSteps } from './read-steps.ts';
import { groupTests } from './read-value-headings.ts';
import { cutOut, type RequestContext, type RequestText, rollbackPoint } from './request-context.ts';
import { isEventWord, saysHappened } from './trigger-words.ts';

/**
 * The parts a request's cases may be: its sentences, and the comma groups of one that each have
 * their own mark ("urgent -> tag it hot, low -> tag it cold").
 */
const PARTS = /(?:[^.;!?,]|,(?![^,:=.;!?]*[:=]))+/g;

/** Words a heading before the first case may hold beside the event's own. */
const BESIDE = /^(?:only|just|all|any|every|the|for|ones?|on|from|pls|please)$/;

interface Case {
  readonly field: string;
  readonly values: string[];
  /** Where its values start, and where its actions start and end, in the text. */
  readonly at: number;
  readonly from: number;
  readonly to: number;
}

/** The last ":" or "=" of `s` before `end`, or -1. */
const lastMark = (s: string, end = s.length) =>
  Math.max(s.lastIndexOf(':', end - 1), s.lastIndexOf('=', end - 1));

/**
 * The case part `part` (at `at` in the text) says, or undefined. `heading`: whether words before
 * its values may stand, read already (by the trigger's reader: blank in `buf`).
 */
function caseOf(
  part: string,
  at: number,
  shape: EventShape,
  buf: RequestText,
  heading: boolean,
  ctx: RequestContext,
) {
  const mark = lastMark(part);
  if (mark < 0 || part.slice(mark + 1).trim() === '') return undefined;
  const start = lastMark(part, mark) + 1;
  // (The first case's heading names the event, or the trigger's reader took it.)
  const head = part.slice(0, start);
  const named = (head.match(/[a-z0-9'-]+/g) ?? []).every(
    (w) => BESIDE.test(w) || isEventWord(w, ctx) || saysHappened(w, ctx),
  );
  if (start > 0 && !(heading && (named || buf.text.slice(at, at + start).trim() === ''))) return undefined;
  // (Alternatives of one field: "search or auth alerts"; the event's noun and "only" beside them.)
  const tests = groupTests(part.slice(start, mark).trim(), shape, ctx);
  if (!tests || new Set(tests.map((t) => t.field)).size !== 1) return undefined;
  const c: Case = {
    field: tests[0]!.field,
    values: tests.map((t) => t.value),
    at: at + start,
    from: at + mark + 1,
    to: at + part.length,
  };
  return c;
}

/**
 * The choice the cases of `text` (the request as it was before the trigger's reader took its
 * heading) say, with the field they test; each case's values are cut out of `buf`, its actions
 * left for the checks that read every word.
 */
export function readValueCases(
  text: string,
  buf: RequestText,
  raw: string,
  event: string | undefined,
  lower: string,
  ctx: RequestContext,
  apart?: ElseApart,
): { branch: Branch; field: string } | undefined {
  // (An else of a duration, "anything longer", is no case's.)
  const shape = ctx.events?.find((e) => e.type === event);
  if (!shape || apart?.kind === 'duration') return undefined;
  const back = rollbackPoint(ctx);
  const cases: Case[] = [];
  for (const m of text.matchAll(PARTS)) {
    const part = m[0].trimEnd();
    if (part.trim() === '') continue;
    const c = caseOf(part, m.index!, shape, buf, cases.length === 0, ctx);
    if (!c) return back();
    cases.push(c);
  }
  const field = cases[0]?.field;
  const values = cases.flatMap((c) => c.values);
  if (cases.length < 2 || cases.some((c) => c.field !== field) || new Set(values).size !== values.length)
    return back();
  // ("hide only": just that action.)
  const read = (t: string, r: string) =>
    readSteps(
      splitClauses(
        t.replace(/\bonly\s*$/, (w) => ' '.repeat(w.length)),
        r,
      ),
      event,
      lower,
      ctx,
      true,
    );
  const branches = cases.map((c) => ({ c, steps: read(text.slice(c.from, c.to), raw.slice(c.from, c.to)) }));
  const otherwise = apart ? read(apart.text, apart.raw) : [];
  if (branches.some((b) => b.steps.length === 0) || (apart && otherwise.length === 0)) return back();
  const all = uniqueNames([...branches.flatMap((b) => b.steps), ...otherwise]);
  const when = (c: Case) => c.values.map((v) => `payload.${c.field} == ${JSON.stringify(v)}`).join(' or ');
  const choice: ChooseStepSpec = {
    name: `by_${field}`,
    choose: branches.map((b) => ({ when: when(b.c), steps: b.steps.map((s) => s.step) })),
    ...(otherwise.length ? { else: otherwise.map((s) => s.step) } : {}),
  };
  ctx.assumptions.push(
    `The cases are read as a choice on ${field}: ${branches.map((b) => `${b.c.values.join(' or ')}: ${b.steps.map((s) => s.step.name).join(', ')}`).join('; ')}; ${otherwise.length ? `else (${apart!.said}): ${otherwise.map((s) => s.step.name).join(', ')}` : `events with another ${field} run nothing`}.`,
  );
  // The values and their marks are read; the actions stay for the checks that read every word.
  for (const c of cases) cutOut(buf, { index: c.at, 0: text.slice(c.at, c.from) });
  const longest = Math.max(otherwise.length, ...branches.map((b) => b.steps.length));
  return { branch: { all, flow: [choice], longest }, field: field! };
}
