/**
 * The steps part of the grammar: each action clause (read-clauses.ts) becomes one step — its tool
 * (map-tool.ts), a name from the word that names the tool's action ("process the refund" ->
 * refund), its arguments (fill-args.ts) — in the order the clauses run; the same tool twice is one
 * step. Approvals are read here too: a destructive tool or an approval gate waits for a person by
 * itself (a note says so); any other tool cannot be made to wait by a spec (a question).
 *
 * An action under a negation ("don't refund anything yet", "do NOT page anyone", "no refunds",
 * "never pay") is never a step: the tool it names is left out of the whole draft, and the read-back
 * says so (an assumption). A negation whose clause held a bound a reader cut out ("don't pay more than
 * $50", "no refunds above 75") is a cap, read by read-amounts, and its action stays.
 *
 * New step kinds (waits, branches, delegations) become steps here, from the clauses that name them.
 */
import type { StepSpec } from '../../spec/workflow-spec.ts';
import type { ToolDescriptor } from '../../tools/tool-descriptor.ts';
import { APPROVAL, NOT_A_BAN, notABan } from '../negated-actions.ts';
import { ACTION_GROUPS, FILLER, GENERIC_VERBS, groupOf, lemmas } from '../request-words.ts';
import { fillArgs } from './fill-args.ts';
import { mapTool } from './map-tool.ts';
import { TAKE_DOWN, TAKE_DOWN_GROUPS } from './permanence.ts';
import type { Clause } from './read-clauses.ts';
import { smsTool } from './read-message-text.ts';
import { timeOnly } from './read-routes.ts';
import { type DraftStep, probing, type RequestContext } from './request-context.ts';
import { toolWords } from './tool-words.ts';
import { restatedEventWord } from './trigger-restated.ts';
import { isEventWord, isNounOf } from './trigger-words.ts';

export type { DraftStep } from './request-context.ts';

/**
 * A clause that forbids its action: "don't ...", "do not ...", "dont", "never", "no <noun>",
 * "without", "no need to ...", "dont bother emailing ...".
 */
export const NEGATED_CLAUSE =
  /^(?:(?:but|and|yet|so|just|please)\s+)*(?:don'?t|dont|do not|never|no|not|without)\s+(?:(?:ever|yet|even|actually|please|need to|have to|bother(?: to| with)?)\s+)*/;

/**
 * "skip reimbursing it", "hold off on the payment": an action left out, read as a ban only when
 * its words name a tool's action ("skip alcohol." names none: the other readers, or a question).
 */
const SKIPPED_CLAUSE =
  /^(?:(?:but|and|yet|so|just|please|then)\s+)*(?:skip|hold off on|leave out|forget about)\s+(?:(?:the|any|a)\s+)?/;

/** "if it's alcohol, skip it", "leave them alone": nothing done (in a case, that case's whole answer). */
const NOTHING_DONE =
  /^(?:(?:but|and|so|just|please|then)\s+)*(?:skip|ignore|leave)\s+(?:it|them|that|this)(?:\s+(?:alone|be|as\s+is))?\s*$/;

/**
 * "sev3 alerts dont need paging", "the vendor doesn't need an email": a ban said of its subject;
 * the subject names no action (checked by `negatedAfterSubject`).
 */
const NEEDS_NO =
  /^((?:(?:but|and|yet|so|just|please)\s+)*)((?:[a-z0-9'"-]+\s+){1,4}?)(?:don'?t|dont|doesn'?t|doesnt|do not|does not|won'?t|wont|will not)\s+(?:really\s+|even\s+)?(?:need|require|want)\s+(?:to\s+(?:be\s+)?)?/;

const DO_NOT_FORGET =
  /^(?:(?:but|and|so|just|please)\s+)*(?:don'?t|dont|do not|never) (?:forget|fail|hesitate) to\s+/;

/**
 * "make sure the ticket actually gets closed", "ensure it is paid": the action said of its object,
 * read as the verb first ("closed the ticket"), so the same action said twice is one step.
 */
const MAKE_SURE =
  /^(?:(?:and|also|please|just)\s+)*(?:make sure|ensure|see to it)(?: that)?\s+((?:[a-z0-9'-]+\s+){0,3}?)(?:actually\s+|really\s+|also\s+)?(?:gets|get|is|are|was|were|has been|have been|got)\s+(?:actually\s+|really\s+)?([a-z]+ed)\b/;

/**
 * "posts that hit 15 reports get hidden", "read-only requests can just be granted", "anything up to
 * $999 gets paid": the action said in the passive, read as its verb first ("hide posts that ...").
 * Only a participle of an action some tool of the catalog does, after words that name none.
 */
const PASSIVE =
  /^((?:(?:and|also|please|just|then|so)\s+)*)((?:(?!(?:is|are|be|been|get|gets|got)\b)[a-z0-9'"-]+\s+){1,8}?)(?:(?:can|should|must|will|shall|may|to)\s+)?(?:(?:just|all|always|then|also)\s+)?(?:is|are|be|been|get|gets|got)\s+((?:[a-z]+ly\s+|just\s+|all\s+|then\s+)*)([a-z]+)\b/;
/** Participles not made with -ed. */
const IRREGULAR = new Map([
  ['hidden', 'hide'],
  ['paid', 'pay'],
  ['sent', 'send'],
  ['told', 'tell'],
  ['given', 'give'],
  ['written', 'write'],
  ['shut', 'shut'],
  ['takedown', 'takedown'],
]);

/** What is left of a filter once read ("for E-42 only", "only verified ones please"): "only" and no word of its own. */
const ONLY_LEFT = /^[\s.,;:!]*(?:(?:but|only|ones?|please|pls|thanks|thx)\b[\s.,;:!]*)+$/;
/** "for employee E-42 only", "vendor V-100 only": an id (read as the trigger's test of its field) and "only". */
const ONLY_ID = /^\s*(?:(?:for|from|by)\s+)?(?:[a-z]+\s+)?[a-z]{1,4}-?[0-9]{1,8}\s+only\s*[.,;:!]*\s*$/;
/** "refund requests in USD only": a currency code (read as the events' currency) and "only". */
const ONLY_CURRENCY = /\b(?:usd|eur|gbp|cad|aud|jpy)\s+only\s*[.,;:!]*\s*$/;
/** "verified ones only", "only verified ones please": a word of a yes/no field of the event, and "only". */
const ONLY_FLAG = /^\s*(?:only\s+)?([a-z]+)\s+ones?(?:\s+only)?(?:\s+(?:please|pls))?\s*[.,;:!]*\s*$/;

/**
 * A clause that is only what is left of a filter the trigger read, with its "only" ("for employee
 * E-42 only", "verified ones only"): nothing more to do. Only for an id or a yes/no field of the
 * event said whole; what else a lone "only" is left of ("one refund per order only", "first one
 * only") may be words no reader took, and stays a question.
 */
function onlyOfReadFilter(c: Clause, event: string | undefined, ctx: RequestContext): boolean {
  const raw = c.raw.toLowerCase();
  if (!ONLY_LEFT.test(c.text) || !/\bonly\b/.test(raw)) return false;
  // (The filter may be said before the clause: "for employee E-42 only: approve ...".)
  const said = `${(c.lead ?? '').toLowerCase().split(/[,;:]/).pop()} ${raw}`;
  if (ONLY_ID.test(said) || ONLY_CURRENCY.test(said)) return true;
  const flag = ONLY_FLAG.exec(said)?.[1];
  const flags = ctx.events?.find((e) => e.type === event)?.flags ?? [];
  return flag !== undefined && flags.some((f) => f.split('_').includes(flag));
}

/** "put the resolution on it": a clause naming only an argument of a step already drafted. */
const ARG_ONLY = /^(?:(?:and|also|please|just)\s+)*(?:put|add|set|include|attach|fill in|use|pass)\s+/;

const NO_APPROVAL =
  /\b(?:without (?:asking|approval|waiting)|no approval|don't ask|do not ask|no need to ask)\b/;

/**
 * The steps of `clauses`, their arguments read against the trigger `event`; then the notes and
 * questions their approvals raise (`lower`: the whole request, for "without asking"; `inCase`: the
 * clauses are one case's answer, where "skip it" is an answer of its own).
 */
export function readSteps(
  clauses: readonly Clause[],
  event: string | undefined,
  lower: string,
  ctx: RequestContext,
  inCase = false,
): DraftStep[] {
  const steps: DraftStep[] = [];
  const forbidden = new Map<string, string>();
  const times: { raw: string; marks: number[] }[] = [];
  for (const said of clauses) {
    // "don't forget to refund them", "never fail to reply": the action is asked for.
    const c = { ...said, text: said.text.replace(DO_NOT_FORGET, (m) => ' '.repeat(m.length)) };
    const sure = MAKE_SURE.exec(c.text);
    if (sure) c.text = `${sure[2]} ${sure[1]}`.padEnd(sure[0].length, ' ') + c.text.slice(sure[0].length);
    const passive = sure ? undefined : activeOf(c.text, ctx);
    if (passive) c.text = passive;
    const arg = ARG_ONLY.test(c.text) ? argumentNamed(c, steps) : undefined;
    if (arg) {
      ctx.assumptions.push(`"${c.raw.trim()}" is read as ${arg.step}'s ${arg.name} argument, already set.`);
      continue;
    }
    // "needs a response within 2hrs": a time for the step that takes it, no step of its own.
    const time = timeOnly(c, ctx);
    if (time) {
      times.push({ raw: c.raw.trim(), marks: time });
      continue;
    }
    // (Only a case's own answer: "pay it. skip it for alcohol" says which events, read elsewhere or asked.)
    if (inCase && NOTHING_DONE.test(c.text)) {
      ctx.assumptions.push(`"${c.raw.trim()}" is read as: nothing is done there.`);
      continue;
    }
    const neg = NEGATED_CLAUSE.exec(c.text) ?? negatedAfterSubject(c.text, ctx);
    const skip = neg ? null : SKIPPED_CLAUSE.exec(c.text);
    // A blank inside the clause is a bound a reader took ("don't pay more than [$50]"): a cap, not a ban.
    if ((neg || skip) && !isBound(c, lower)) {
      const scratch = probing(ctx);
      const tool = mapTool({ ...c, text: c.text.slice((neg ?? skip)![0].length) }, scratch);
      if (tool) forbidden.set(tool.name, c.raw.trim());
      if (tool || neg) continue;
    }
    // "Invoices from V-100 (...): pay them", "usd invoices only. pay them": the heading's tests
    // read, its noun alone (with "only") is the event.
    if (headingNounOnly(c, event, ctx)) continue;
    // "for employee E-42 only, approve ...", "only verified ones please": the filter read, its
    // "only" says nothing more ("only once it has 10+ reports, ..." leads a test of what follows).
    if (onlyOfReadFilter(c, event, ctx)) continue;
    const restated = restatedEventWord(c, event);
    if (restated) {
      ctx.questions.push({
        about: `steps: "${c.raw.trim()}"`,
        question: `Is "${c.raw.trim()}" an action, or the ${event} event said again ("${restated}")? Say the action with its verb, or the event with "when".`,
      });
      continue;
    }
    const tool = mapTool(c, ctx);
    if (!tool) continue;
    const existing = steps.find((s) => s.tool.name === tool.name);
    // "make sure it gets tagged" after "tag it refund": the same action said again, one step.
    if (sure && existing) continue;
    if (existing && c.approval) {
      existing.approval = true;
      continue;
    }
    // ("text them ...": the channel is sms, said as a value the argument reader reads.)
    const texted = /^\s*text\b/.test(c.text) && smsTool('text', ctx) === tool;
    const args = fillArgs(
      texted ? { ...c, text: c.text.replace(/^(\s*)text\b/, '$1sms ') } : c,
      tool,
      event,
      ctx,
    );
    steps.push({
      step: {
        name: stepName(
          c,
          tool,
          steps.map((s) => s.step.name),
        ),
        tool: tool.name,
        args,
      },
      tool,
      approval: c.approval,
      said: c.text,
    });
  }
  for (const [name, words] of forbidden) {
    const i = steps.findIndex((s) => s.tool.name === name);
    if (i >= 0)
      ctx.questions.push({
        about: `steps: ${steps[i]!.step.name}`,
        question: `The request says "${words}", and also asks for ${name}. Should the workflow call ${name} or not?`,
      });
    else {
      ctx.assumptions.push(`"${words}" is read as a ban: the workflow never calls ${name}.`);
      ctx.banned.push(name);
    }
  }
  for (const t of times)
    if (
      !t.marks.every((n) =>
        steps.some((s) => ctx.argQuotes.get(n)!.args.some((a) => a in (s.step.args ?? {}))),
      )
    )
      ctx.questions.push({
        about: 'request',
        question: `"${t.raw}" says a time, but no step takes it. Which action should it be for?`,
      });
  for (const s of steps) if (s.approval) checkApproval(s.step, s.tool, ctx);
  if (NO_APPROVAL.test(lower))
    for (const s of steps)
      if (s.tool.destructive)
        ctx.notes.push(
          `${s.tool.name} is destructive: it waits for a person's approval until the version is promoted to AUTONOMOUS; a draft cannot skip that.`,
        );
  return steps;
}

/** The clause said in the passive, with its verb first (`PASSIVE`), the same length; undefined: not one. */
function activeOf(text: string, ctx: RequestContext): string | undefined {
  const m = PASSIVE.exec(text);
  if (!m) return undefined;
  const p = m[4]!;
  const verb =
    IRREGULAR.get(p) ?? (/ed$/.test(p) ? lemmas(p).find((l) => l !== p && namesAction(l, ctx)) : undefined);
  if (verb === undefined || !namesAction(verb, ctx)) return undefined;
  // Words before the verb that name an action themselves ("refund it once approved"): not a passive.
  // (The event's own noun is no action: "posts that hit 15 reports get hidden".)
  if (namesAnAction(m[2]!, ctx)) return undefined;
  return `${m[1]}${verb} ${m[2]}${m[3]}`.padEnd(m[0].length, ' ') + text.slice(m[0].length);
}

/** A ban said of its subject (`NEEDS_NO`), as a match whose length is where the action starts. */
function negatedAfterSubject(text: string, ctx: RequestContext): RegExpExecArray | null {
  const m = NEEDS_NO.exec(text);
  if (!m) return null;
  return namesAnAction(m[2]!, ctx) ? null : m;
}

/** Whether a word of `words` names an action (the event's own nouns do not). */
function namesAnAction(words: string, ctx: RequestContext): boolean {
  return words
    .split(/\s+/)
    .some(
      (w) =>
        w &&
        !isEventWord(w, ctx) &&
        (GENERIC_VERBS.has(w) ||
          lemmas(w).some((l) => groupOf(ACTION_GROUPS, l) !== undefined && namesAction(l, ctx))),
    );
}

/** Whether `verb` (or its group) names what some tool of the catalog does. */
function namesAction(verb: string, ctx: RequestContext): boolean {
  const group = verb === TAKE_DOWN ? TAKE_DOWN_GROUPS : (groupOf(ACTION_GROUPS, verb) ?? [verb]);
  return ctx.tools.some((t) => group.some((w) => toolWords(t).name.has(w) || toolWords(t).first.has(w)));
}

/**
 * A negated clause that bounds or gates its action ("don't pay more than $50"): a reader cut the
 * bound out of the clause (a blank inside it), or the request goes on after it with one.
 */
function isBound(c: Clause, lower: string): boolean {
  // (A quoted value keeps the length of what it stands for: its padding is no blank.)
  if (/\S {2,}\S/.test(c.text.replace(/ *("q[0-9]+") +/g, ' $1 '))) return true;
  const at = lower.indexOf(c.text);
  const rest = at < 0 ? c.text : lower.slice(at).split(/[.,;:!?\n]|\s(?:and|but|then|so|instead)\s/)[0]!;
  const text = rest.replace(/"q[0-9]+"/g, ' ');
  // ("don't approve it, just pay": the approval is what is forbidden; see `notABan`.)
  // ("without approval" gates the action said with it: never a ban on the approval.)
  const after = /^(?:(?:but|and|yet|so|just|please)\s+)*without\b/.test(text)
    ? text
    : text.replace(NEGATED_CLAUSE, '');
  return APPROVAL.test(after) ? notABan(after) : NOT_A_BAN.test(text);
}

/** The argument of a drafted step a clause names alone ("put the resolution on it"), when that step sets it. */
function argumentNamed(c: Clause, steps: readonly DraftStep[]): { step: string; name: string } | undefined {
  const words = c.text
    .replace(ARG_ONLY, '')
    .replace(/"q[0-9]+"/g, ' ')
    .split(/[^a-z0-9_]+/)
    .filter((w) => w && !FILLER.has(w));
  if (words.length === 0) return undefined;
  for (const s of steps)
    for (const name of Object.keys(s.step.args ?? {})) {
      const parts = name.split('_');
      if (words.every((w) => lemmas(w).some((l) => parts.includes(l)))) return { step: s.step.name, name };
    }
  return undefined;
}

function stepName(c: Clause, tool: ToolDescriptor, taken: readonly string[]): string {
  const content = c.text.split(/[^a-z0-9_]+/).filter((t) => t && !FILLER.has(t) && !/^q[0-9]+$/.test(t));
  // The first word that names the tool's action ("process the refund" -> refund), else the tool's name.
  const named = content
    .map(
      (w) =>
        lemmas(w)
          .map((l) => groupOf(ACTION_GROUPS, l))
          .find((g) => g !== undefined)?.[0],
    )
    .find((g) => g !== undefined && toolWords(tool).all.has(g));
  let base = named ?? tool.name.replace(/[^A-Za-z0-9_]/g, '_');
  if (!/^[A-Za-z_]/.test(base)) base = `step_${base}`;
  let name = base;
  for (let i = 2; taken.includes(name); i++) name = `${base}_${i}`;
  return name;
}

function checkApproval(step: StepSpec, tool: ToolDescriptor, ctx: RequestContext): void {
  if (tool.destructive || tool.approval === 'always') {
    ctx.notes.push(
      tool.approval === 'always'
        ? `${step.name} (${tool.name}) always waits for a person's approval: the tool is an approval gate.`
        : `${step.name} (${tool.name}) waits for a person's approval: the tool is destructive, and a version that is not AUTONOMOUS asks before every call.`,
    );
    return;
  }
  ctx.questions.push({
    about: `steps: ${step.name}`,
    question: `${tool.name} is not destructive, so this spec cannot make it wait for approval; a tenant policy rule can (match: {tool: ${tool.name}}, outcome: require_approval). Keep the step without approval, or leave it out?`,
  });
}

/**
 * A clause that is only the trigger event's noun in the plural ("invoices", "all invoices"), or its
 * type said as a heading ("export requests", "refund requests" for export.requested, refund.requested; plural, as a heading):
 * the event, no action (else "export" would be an action, run before the steps said after it).
 */
function headingNounOnly(c: Clause, event: string | undefined, ctx: RequestContext): boolean {
  const shape = ctx.events?.find((e) => e.type === event);
  if (!shape || /"q[0-9]+"/.test(c.text)) return false;
  const words = c.text
    .replace(/[^a-z\s]/g, ' ')
    .trim()
    .split(/\s+/)
    .filter((w) => !/^(?:all|every|any|the|new|incoming|only)$/.test(w));
  if (words.length === 2 && event !== undefined) {
    const [noun, verbed] = event.split('.') as [string, string | undefined];
    const said = words[1]!.endsWith('s') ? words[1]!.slice(0, -1) : '';
    if (verbed !== undefined && words[0] === noun && said.length >= 4 && verbed.startsWith(said)) return true;
  }
  return words.length === 1 && words[0]!.endsWith('s') && isNounOf(words[0]!, shape);
}
