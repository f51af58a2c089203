/**
 * Exclusions a draft would drop: a request that leaves something out ("cancel for non-payment, but
 * not premium plans", "deny it, except tip line alerts", "excluding contractors") drafted with no
 * test that names what it leaves out, and no choice, acts on every event, the left-out ones too. Read on the request as written and the draft as drafted, so
 * it holds whatever compiled it; an exclusion that is a bound, a time or a sign-off ("but not more
 * than $50", "but not before approval"), or an action forbidden (read by negated-actions.ts), is
 * no such exclusion. Pure.
 */
import { type FlowStep, isChooseStep, isToolStep, nestedLists, toolSteps } from '../spec/flow-steps.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import { NOT_A_BAN } from './negated-actions.ts';
import { FILLER, lemmas } from './request-words.ts';

/** "but not X", "except (for) X", "excluding X", "other than X", "apart from X", "not for X", ", not X", "unless X". */
const EXCLUSION =
  /(?:\b(?:but not|except(?: for)?|excluding|other than|apart from|aside from|not for|never for|unless)|[,;]\s*not)\s+([^.,;:!?\n]+)/g;

/** The tests a draft holds, as written: its triggers' `when`, each branch's `when`, each step's `if`. */
function testsOf(spec: WorkflowSpec): string[] {
  const out = spec.triggers.flatMap((t) => (t.when ? [t.when] : []));
  const walk = (list: readonly FlowStep[]) => {
    for (const s of list) {
      if (isToolStep(s) && s.if) out.push(s.if);
      if (isChooseStep(s)) out.push(...s.choose.map((b) => b.when));
      for (const l of nestedLists(s)) walk(l.steps);
    }
  };
  walk(spec.steps);
  return out;
}

/** One comparison of a test: `payload.claim_type != "home"`, `payload.autopay == false`. */
const COMPARISON = /([a-z0-9_.]+) (==|!=|<=|>=|<|>) ("(?:[^"\\]|\\.)*"|true|false|-?[0-9.]+)/g;

/** Whether a comparison leaves events out by what it names: `!=`, `== false`, a bound. */
const leavesOut = (op: string, value: string) => op !== '==' || value === 'false';

/**
 * The first exclusion of `request` no test of the draft leaves out: one no comparison names (a
 * word of it in the field or the value), or one only comparisons that keep it name ("except
 * reason 'wrong item'" drafted as `reason == "wrong item"`: the opposite). Undefined when none.
 */
export function droppedExclusion(request: string, spec: WorkflowSpec): string | undefined {
  let t = request.toLowerCase().replace(/[\u2018\u2019]/g, "'");
  if (spec.steps.some((s) => isChooseStep(s))) return undefined;
  // The words a step sends ("DM them: unless you call us ...") are its text, not an exclusion.
  for (const s of toolSteps(spec))
    for (const v of Object.values(s.args))
      if (typeof v === 'string' && /\s/.test(v))
        t = t.replace(
          v
            .toLowerCase()
            .replace(/[\u2018\u2019]/g, "'")
            .replace(/\.$/, ''),
          ' ',
        );
  const comparisons = testsOf(spec).flatMap((w) => [...w.toLowerCase().matchAll(COMPARISON)]);
  // (Each side of an "or" on its own: "unless it's over 1000 or it's a home claim".)
  for (const m of t.matchAll(EXCLUSION))
    for (const part of m[1]!.split(/\s+or\s+/)) {
      const rest = part.trim();
      // A bound, a time or a sign-off ("but not more than $50", "except when approved") is read elsewhere.
      if (rest === '' || NOT_A_BAN.test(rest)) continue;
      // Read where a comparison that leaves out names one of its words ("but not home claims").
      const words = rest.split(/[^a-z0-9]+/).filter((w) => w.length > 2 && !FILLER.has(w));
      const names = (c: RegExpMatchArray) =>
        words.some((w) => lemmas(w).some((l) => l.length > 2 && (c[1]! + c[3]!).includes(l)));
      if (!comparisons.some((c) => names(c) && leavesOut(c[2]!, c[3]!))) return m[0].trim();
    }
  return undefined;
}
