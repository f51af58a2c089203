/**
 * Cases keyed by the values of one field, each said with its own actions: "search alerts -> sev3.
 * auth alerts -> sev2 and page the primary", "illegal → hide + remove; misinformation → hide
 * only", "east → reorder 200, west → reorder 350". Each sentence (or part between ";", or comma
 * group with a mark of its own) opens with values of the same field of the event (alternatives joined by "or", "&", "/" or
 * ","; the event's noun and "only" may stand beside them), then ":" ("->", "→" and "=" read as
 * one), then its actions. Two or more such cases, on two or more values, are a choice: a branch
 * per case in the order said (`payload.<field> == "<value>"`, alternatives joined with "or"), and
 * the else said apart ("anyone else → tier 1") as its else; with none, events with other values
 * run nothing. Read back under Assumed. A heading before the
 * first case ("reported posts: illegal → ...") is left to the trigger's reader. Anything else in
 * the request (a sentence that is no case, an "otherwise") leaves the request to the other readers.
 */
import type { ChooseStepSpec } from '../../spec/flow-steps.ts';
import type { Branch } from './build-branch.ts';
import { splitClauses } from './read-clauses.ts';
import type { ElseApart } from './read-else-apart.ts';
import { fieldForValue, isEventNoun } from './read-field-tests.ts';
import { readSteps } from './read-steps.ts';
import { cutOut, probing, type RequestContext, type RequestText } from './request-context.ts';

/**
 * The parts a request's cases may be: its sentences, and the comma groups of one that each have
 * their own mark ("enterprise → tier 2 (1 hour), pro → tier 2 (4 hours)").
 */
const PARTS = /(?:[^.;!?,]|,(?![^,:=]*[:=]))+/g;

/** Words a case's values may stand with: the event's noun is checked apart. */
const BESIDE = /^(?:only|just|all|any|every|the|for|ones?|on|from|pls|please|and|or)$/;

interface Case {
  readonly field: string;
  readonly values: string[];
  /** Where the case starts, and where its actions start and end, in the text. */
  readonly at: number;
  readonly from: number;
  readonly to: number;
}

/** The case a part of the request says, or undefined. */
function caseOf(part: string, at: number, event: string, ctx: RequestContext): Case | undefined {
  const shape = ctx.events?.find((e) => e.type === event);
  if (!shape) return undefined;
  // (A heading before the first case: "reported posts: illegal : hide ..." keeps the last head.)
  const m = /^(.*?)([^:=]*?)\s*(?::|=)\s*([^:=]+)$/.exec(part);
  if (!m || m[3]!.trim() === '') return undefined;
  const words = m[2]!
    .split(/\s*(?:\bor\b|&|\/|,)\s*|\s+/)
    .filter((w) => w !== '' && !BESIDE.test(w) && !isEventNoun(w, shape));
  if (words.length === 0) return undefined;
  const probe = probing(ctx);
  const hits = words.map((w) =>
    /^[a-z0-9][a-z0-9-]*$/.test(w) ? fieldForValue(w, shape, probe) : undefined,
  );
  if (hits.some((h) => h === undefined)) return undefined;
  const fields = new Set(hits.map((h) => h!.field));
  if (fields.size !== 1) return undefined;
  const from = at + m[0].length - m[3]!.length;
  return { field: hits[0]!.field, values: hits.map((h) => h!.value), at, from, to: at + part.length };
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
  // ("everyone else → tier 1": the else said apart is the choice's else; one of a duration is not.)
  if (apart?.kind === 'duration') return undefined;
  if (event === undefined) return undefined;
  const cases: Case[] = [];
  for (const m of text.matchAll(PARTS)) {
    const part = m[0];
    if (part.trim() === '') continue;
    const lead = part.length - part.trimStart().length;
    const c = caseOf(part.trim(), m.index! + lead, event, ctx);
    if (!c) return undefined;
    cases.push(c);
  }
  const field = cases[0]?.field;
  if (cases.length < 2 || cases.some((c) => c.field !== field)) return undefined;
  const values = cases.flatMap((c) => c.values);
  if (new Set(values).size !== values.length) return undefined;
  const branches = cases.map((c) => ({
    c,
    // ("hide only": just that action.)
    steps: readSteps(
      splitClauses(
        text.slice(c.from, c.to).replace(/\bonly\s*$/, (w) => ' '.repeat(w.length)),
        raw.slice(c.from, c.to),
      ),
      event,
      lower,
      ctx,
    ),
  }));
  if (branches.some((b) => b.steps.length === 0)) return undefined;
  const otherwise = apart ? readSteps(splitClauses(apart.text, apart.raw), event, lower, ctx) : [];
  if (apart && otherwise.length === 0) return undefined;
  const all = [...branches.flatMap((b) => b.steps), ...otherwise];
  const names = new Set<string>();
  for (const s of all) {
    let n = s.step.name;
    for (let i = 2; names.has(n); i++) n = `${s.step.name}_${i}`;
    s.step.name = n;
    names.add(n);
  }
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
  return {
    branch: {
      all,
      flow: [choice],
      longest: Math.max(otherwise.length, ...branches.map((b) => b.steps.length)),
    },
    field: field!,
  };
}
