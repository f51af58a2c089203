/**
 * Values an earlier read step of the draft returns, read once every step is placed (the request's
 * own reads and the implied ones, implied-reads.ts):
 *
 * - a required argument nothing else filled (a question "What should X's n be?") that exactly one
 *   earlier read step returns by the same name (`record_count`, `email`) is that step's output;
 * - the money argument of a step whose own words name exactly one field an earlier read step
 *   returns ("refund the full order total": `total_usd`, its unit left out), not after a negation
 *   ("not just the amount"), is that field, instead of the event's amount;
 * - an id argument read from the event's subject when another id argument of the draft already is
 *   (`customer_id`, then `export_id`) is what the one earlier step whose tool is named for it made
 *   (`build_export`): the subject is one thing. Several such steps: a question (which one). So is
 *   the first id argument read from it when an earlier step opened or created what it names and
 *   the event is not about that (`incident_id` after open_incident, on an alert); when no step
 *   of the draft makes one while a tool of the catalog would, it is asked (never the subject),
 *   unless the words give it ("alert id as the incident id").
 *
 * Each is listed under "Assumed". Only top-level read steps before the step (or before the branch
 * holding it) count: a step never reads an output that runs later or only on another path. What a
 * step made counts for the steps after it: at the top level, and in a branch for the steps of
 * that branch. Pure.
 */
import type { ChooseStepSpec, FlowStep } from '../../spec/flow-steps.ts';
import type { StepSpec } from '../../spec/workflow-spec.ts';
import { outputsOf } from './implied-reads.ts';
import { type DraftStep, listOr, type RequestContext } from './request-context.ts';

/** What a step of the draft made, for the id arguments of the steps after it. */
const madeBy = (name: string, tool: string) => ({ name, tool, opens: OPENS.has(tool.split('_')[0]!) });

/** Verbs a tool is named with when it makes the thing it names (open_incident, create_ticket). */
const OPENS = new Set([
  'open',
  'create',
  'build',
  'make',
  'generate',
  'file',
  'raise',
  'start',
  'add',
  'log',
  'new',
]);
const UNIT = new Set(['usd', 'cents', 'cent', 'dollars', 'eur', 'gbp']);
const NEGATED_BEFORE = /(?:\b(?:not|never|instead of|rather than)|n't)\s+(?:[a-z'$-]+\s+){0,3}$/;

/** Tool steps of one top-level step, its branches' too. */
function toolStepsIn(s: FlowStep): StepSpec[] {
  if ('choose' in s) {
    const c = s as ChooseStepSpec;
    return [...c.choose.flatMap((b) => b.steps.flatMap(toolStepsIn)), ...(c.else ?? []).flatMap(toolStepsIn)];
  }
  return 'tool' in s ? [s as StepSpec] : [];
}

/** Whether `words` name the field `field` (its name's words, unit left out), not after a negation. */
function names(words: string, field: string): boolean {
  const parts = field.split('_').filter((w) => w && !UNIT.has(w));
  if (parts.length === 0) return false;
  const re = new RegExp(`\\b${parts.join('[ _-]')}s?\\b`, 'g');
  return [...words.matchAll(re)].some((m) => !NEGATED_BEFORE.test(words.slice(0, m.index)));
}

/** Fills arguments from earlier read steps' outputs; drops the questions they answer. */
export function fillFromEarlierReads(
  steps: readonly DraftStep[],
  flow: readonly FlowStep[],
  ctx: RequestContext,
  event?: string,
): void {
  const byStep = new Map(steps.map((d) => [d.step, d]));
  const reads: { name: string; tool: string; fields: string[]; yesNo: Set<string> }[] = [];
  const answered = new Set<string>();
  const unanswered = new Set<string>();
  const made: { name: string; tool: string; opens: boolean }[] = [];
  const noun = event?.slice(0, event.lastIndexOf('.'));
  let subjectAs: string | undefined;
  for (const top of flow) {
    // A step of a branch sees what the steps before it in its own branch made, never another's.
    const c = 'choose' in top ? (top as ChooseStepSpec) : undefined;
    const lists = c
      ? [...c.choose.map((b) => b.steps.flatMap(toolStepsIn)), (c.else ?? []).flatMap(toolStepsIn)]
      : [toolStepsIn(top)];
    for (const list of lists) {
      const before = made.length;
      for (const s of list) {
        const d = byStep.get(s);
        const tool = d?.tool ?? ctx.tools.find((t) => t.name === s.tool);
        if (!tool) continue;
        const args = s.args;
        const money = tool.cost?.fromArg;
        const said = d?.said?.toLowerCase();
        if (money !== undefined && said !== undefined && !(typeof args[money] === 'number')) {
          // A field named only by the tool's own words ("return the deposit", deposit_usd) is its object.
          const own = new Set(tool.name.split('_'));
          const named = reads.flatMap((r) =>
            r.fields
              // (A yes/no is never an amount: "pay matched invoices" says which ones, not what to pay.)
              .filter(
                (f) =>
                  names(said, f) && !r.yesNo.has(f) && !f.split('_').every((w) => own.has(w) || UNIT.has(w)),
              )
              .map((f) => ({ r, f })),
          );
          if (named.length === 1) {
            const { r, f } = named[0]!;
            const had = args[money];
            args[money] = `{{steps.${r.name}.output.${f}}}`;
            answered.add(`args: ${tool.name}.${money}`);
            ctx.assumptions.push(
              `${s.name} (${tool.name})'s ${money} is what ${r.name} (${r.tool}) returns as ${f}, as the words name it${had === undefined ? '' : `, not ${JSON.stringify(had)}`}.`,
            );
          }
        }
        // The event's subject is one thing: an id argument of another name read from it too
        // (`export_id` after `customer_id`) is what an earlier step named for it made (build_export).
        for (const [n, v] of Object.entries(args)) {
          if (v !== '{{event.subject}}' || !/_id$/.test(n)) continue;
          const stem = n.replace(/_id$/, '');
          // ...and so is the first one, when it names what an earlier step of the draft opened or
          // created (`incident_id` after open_incident), not the event's own noun (an alert's subject
          // is no incident).
          const first = subjectAs === undefined || subjectAs === n;
          const opened = stem !== noun ? made.filter((m) => m.opens && m.tool.split('_').includes(stem)) : [];
          // ...and no step of the draft opens one while a tool of the catalog would, and the words do
          // not give it ("alert id as the incident"): asked, never the event's subject ("page the
          // primary, dont bother opening an incident").
          // (Said in words, "alert id as the incident id", it is what the words say.)
          const inWords = [...ctx.argQuotes.values()].some((t) => t.args.includes(n));
          // (A type that names the thing, helpdesk.ticket_opened, is an event about it: its subject is one.)
          const ofIt = event?.split(/[._]/).includes(stem) ?? false;
          const openers =
            first && opened.length === 0 && stem !== noun && !ofIt && !inWords
              ? ctx.tools.filter((t) => OPENS.has(t.name.split('_')[0]!) && t.name.split('_').includes(stem))
              : [];
          if (openers.length > 0) {
            ctx.questions.push({
              about: `args: ${tool.name}.${n}`,
              question: `Which ${stem} should ${s.name} (${tool.name}) take? The ${event ?? 'trigger'} event's subject is no ${stem}, and no step of the draft makes one (${listOr(openers.map((t) => t.name))} would).`,
            });
            continue;
          }
          if (first && (opened.length === 0 || inWords)) {
            subjectAs = n;
            continue;
          }
          const makers = first ? opened : made.filter((m) => m.tool.split('_').includes(stem));
          if (makers.length === 1) {
            args[n] = `{{steps.${makers[0]!.name}.output.${n}}}`;
            ctx.assumptions.push(
              `${s.name} (${tool.name})'s ${n} is what ${makers[0]!.name} (${makers[0]!.tool}) made: ${first ? `the ${event ?? 'trigger'} event's subject is no ${stem}` : `the event's subject is its ${subjectAs}`}.`,
            );
          } else if (makers.length > 1)
            ctx.questions.push({
              about: `args: ${tool.name}.${n}`,
              question: `Which ${stem} should ${s.name} (${tool.name}) take: what ${listOr(makers.map((m) => m.name))} made? Each makes one.`,
              candidates: makers.map((m) => m.name),
            });
        }
        if (c && tool.effect !== 'read') made.push(madeBy(s.name, tool.name));
        const required = Array.isArray(tool.args.required) ? (tool.args.required as string[]) : [];
        for (const n of required) {
          if (n in args) continue;
          const from = reads.filter((r) => r.fields.includes(n));
          const key = `args: ${tool.name}.${n}`;
          if (from.length !== 1) {
            unanswered.add(key);
            continue;
          }
          args[n] = `{{steps.${from[0]!.name}.output.${n}}}`;
          answered.add(key);
          ctx.assumptions.push(
            `${s.name} (${tool.name})'s ${n} is what ${from[0]!.name} (${from[0]!.tool}) returns as ${n}.`,
          );
        }
      }
      made.length = before;
    }
    // A read is seen by the steps after it, never by its own branch's siblings or earlier ones.
    if ('tool' in top) {
      const s = top as StepSpec;
      const tool = byStep.get(s)?.tool ?? ctx.tools.find((t) => t.name === s.tool);
      if (tool && tool.effect !== 'read') made.push(madeBy(s.name, tool.name));
      if (tool?.effect === 'read') {
        const fields = outputsOf(tool).fields;
        reads.push({
          name: s.name,
          tool: tool.name,
          fields: fields.map((f) => f.name),
          yesNo: new Set(fields.filter((f) => f.yesNo).map((f) => f.name)),
        });
      }
    }
  }
  for (let i = ctx.questions.length - 1; i >= 0; i--) {
    const q = ctx.questions[i]!;
    if (answered.has(q.about) && !unanswered.has(q.about) && /^What should \S+'s \S+ be\?/.test(q.question))
      ctx.questions.splice(i, 1);
  }
}
