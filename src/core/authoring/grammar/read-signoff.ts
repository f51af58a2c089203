/**
 * A person's sign-off said as a step, when the catalog has a tool that asks for it
 * (`request_manager_signoff`, "The employee's manager signs off ..."): "get the manager's ok",
 * "it needs the manager's sign-off", "get their manager to sign off", "send it to their manager
 * for approval" are a call of that tool, when the person named (the manager) is in its words, a
 * small typo too ("managr"). And the same sign-off said as not wanted: "w/o bothering the
 * manager", "no manager authorisation needed", "without asking their manager" is a ban on that
 * tool, read back under "Assumed" (never dropped silently), or, with no such tool, a note that a
 * destructive step still waits for a person until the version is AUTONOMOUS.
 *
 * An approval said of the person writing ("my ok", "ask me first") is not this: it stays the
 * approval read by read-clauses.ts.
 */
import type { ToolDescriptor } from '../../tools/tool-descriptor.ts';
import { lemmas } from '../request-words.ts';
import { oneSlipApart } from './one-slip-apart.ts';
import type { Clause } from './read-clauses.ts';
import { cutOut, type RequestContext, type RequestText } from './request-context.ts';
import { toolWords } from './tool-words.ts';

/** What a sign-off is called (after normalise-request.ts, "sign-off" reads "approval"). */
const SIGNOFF = String.raw`(?:approval|ok|okay|go-ahead|authori[sz]ation|permission|blessing|sign-off|signoff)`;
/** Who may sign off, whatever the catalog: the person a sign-off tool names must be one of these. */
const APPROVERS = new Set(
  'manager managers managr mgr supervisor boss lead approver owner director head finance security hr'.split(
    ' ',
  ),
);
const WHOSE = String.raw`(?:the |their |his |her |a |an |the employee |the requester |the person )?`;
/** A sign-off said as done ("has approved", "signs off", "okayed"): the time an action waits for. */
const SIGNED = String.raw`(?:has\s+|have\s+)?(?:approved?|approves|signed off|signs off|sign off|ok'?d|okayed|okays|oks)`;
const LEAD = String.raw`^(?:(?:and|then|also|just|first|please|so|but)\s+)*(?:(?:it|this|that|they|these|those|each|every one)\s+)?`;

const ASKED: readonly RegExp[] = [
  // "get the manager's ok", "needs the managers sign off", "request their manager's approval on it"
  new RegExp(
    String.raw`${LEAD}(?:get|gets|obtain|request|seek|ask for|need|needs|require|requires|wait for|must get|must have|should get)\s+${WHOSE}([a-z]+?)(?:s|'s|s')?\s+${SIGNOFF}(?:\s+(?:on|for)\s+(?:it|this|that|them|the request))?\s*$`,
  ),
  // "get their manager to sign off", "have the manager approve it", "ask the supervisor to OK it"
  new RegExp(
    String.raw`${LEAD}(?:get|have|ask)\s+${WHOSE}([a-z]+?)(?:s|'s|s')?\s+(?:to\s+)?(?:approve|approval|sign off|ok|okay|authori[sz]e)(?:\s+(?:on\s+)?(?:it|this|that|them))?\s*$`,
  ),
  // "once the manager approves", "their manager has signed off": the sign-off said as done, as
  // the time the action after it waits for (read-clauses.ts runs it first).
  new RegExp(
    String.raw`${LEAD}(?:(?:once|after|when)\s+)?${WHOSE}([a-z]+?)(?:s|'s|s')?\s+${SIGNED}(?:\s+(?:on\s+)?(?:it|this|that|them))?\s*$`,
  ),
  // "send it to their manager for sign-off"
  new RegExp(
    String.raw`${LEAD}(?:send|route|pass|forward)\s+(?:it|this|them|the request)\s+(?:on\s+)?to\s+${WHOSE}([a-z]+?)(?:s|'s|s')?\s+for\s+(?:(?:their|his|her|an?)\s+)?${SIGNOFF}\s*$`,
  ),
];

/** "w/o bothering the manager", "without asking their manager", "no manager authorisation needed". */
const NOT_WANTED = new RegExp(
  String.raw`\b(?:(?:without|w/o|w/out|no need to|don'?t need to|dont need to|do not need to|never|not)\s+(?:bothering|asking|involving|troubling|pinging|waiting for|waiting on|needing|getting|checking with|bother|ask|involve|trouble|wait for|get|check with)\s+${WHOSE}([a-z]+?)(?:s|'s|s')?(?:\s+${SIGNOFF})?|(?:no|without|w/o|w/out|no need for)\s+(?:the |their |a |an |any )?([a-z]+?)(?:s|'s|s')?\s+${SIGNOFF}(?:\s+(?:needed|required|necessary|wanted))?)\b`,
  'g',
);

/** Whether a tool asks a person to sign off (by its name, or its description's first sentence). */
export function asksSignoff(t: ToolDescriptor): boolean {
  return (
    /sign_?off|approval/.test(t.name) ||
    /\bsigns? off\b|\bsign-off\b|\bfor (?:their |his |her |an? )?approval\b/i.test(
      /^(.*?[.!?:])(\s|$)/.exec(t.description)?.[1] ?? t.description,
    )
  );
}

/** Tools that ask a person to sign off. */
function signoffTools(ctx: RequestContext): ToolDescriptor[] {
  return ctx.tools.filter(asksSignoff);
}

/** The sign-off tool whose words name `who` (a typo of one too), when exactly one does. */
function toolFor(who: string, ctx: RequestContext): { tool: ToolDescriptor; typo?: string } | undefined {
  const w = who.replace(/'s$|s'$/, '');
  // A person who may sign off, a small typo too ("supervisr").
  if (!APPROVERS.has(w) && !APPROVERS.has(`${w}s`) && ![...APPROVERS].some((a) => oneSlipApart(w, a)))
    return undefined;
  const names = (t: ToolDescriptor) => lemmas(w).some((l) => toolWords(t).all.has(l));
  const exact = signoffTools(ctx).filter(names);
  if (exact.length === 1) return { tool: exact[0]! };
  if (exact.length > 1) return undefined;
  const near = signoffTools(ctx).flatMap((t) =>
    [...toolWords(t).all].filter((k) => /^[a-z]+$/.test(k) && oneSlipApart(w, k)).map((k) => ({ t, k })),
  );
  const tools = new Set(near.map((n) => n.t));
  return tools.size === 1 ? { tool: near[0]!.t, typo: near[0]!.k } : undefined;
}

/** The sign-off tool an action clause asks for (see the file's comment); undefined: not one. */
export function signoffTool(c: Clause, ctx: RequestContext): ToolDescriptor | undefined {
  const text = c.text.replace(/\s+/g, ' ').trim();
  for (const re of ASKED) {
    const m = re.exec(text);
    if (!m) continue;
    const found = toolFor(m[1]!, ctx);
    if (!found) return undefined;
    ctx.assumptions.push(
      `"${c.raw.trim()}" is read as ${found.tool.name}: the catalog's tool that asks the ${found.typo ?? m[1]!.replace(/s$/, '')} to sign off${found.typo ? ` ("${m[1]}" read as "${found.typo}")` : ''}.`,
    );
    return found.tool;
  }
  return undefined;
}

/**
 * Cuts a sign-off said as not wanted out of the text; returns the tools it bans. Each is read back
 * under "Assumed"; with no such tool, a note says a destructive step still waits for a person.
 */
export function readNoSignoff(buf: RequestText, raw: string, ctx: RequestContext): string[] {
  const banned: string[] = [];
  for (const m of [...buf.text.matchAll(NOT_WANTED)]) {
    const who = m[1] ?? m[2]!;
    const w = who.replace(/'s$|s'$/, '');
    if (!APPROVERS.has(w) && !APPROVERS.has(`${w}s`)) continue;
    const said = raw.slice(m.index, m.index + m[0].length);
    cutOut(buf, m as RegExpExecArray);
    const found = toolFor(who, ctx);
    if (found) {
      banned.push(found.tool.name);
      ctx.assumptions.push(`"${said}" is read as a ban: the workflow never calls ${found.tool.name}.`);
    } else {
      ctx.assumptions.push(`"${said}" is read as: no step asks the ${w} (no tool of the catalog does).`);
      if (ctx.tools.some((t) => t.destructive))
        ctx.notes.push(
          `"${said}": a destructive step still waits for a person's approval until the version is promoted to AUTONOMOUS; a draft cannot skip that.`,
        );
    }
  }
  return banned;
}

/**
 * "every access req needs the managers sign off, ...": the sign-off asked with "needs" right after
 * the event's words is an action, not the event's verb ("needs" also says a request): a clause
 * boundary is put before it (", get"), so the trigger reader stops at the event. Only when the
 * catalog has the sign-off tool the person names.
 */
export function readSignoffAsks(buf: RequestText, ctx: RequestContext): void {
  const re = new RegExp(
    String.raw`\s(?:needs|need|requires|require|must get|should get)\s+(?=${WHOSE}([a-z]+?)(?:s|'s|s')?\s+${SIGNOFF}\b)`,
    'g',
  );
  for (const m of [...buf.text.matchAll(re)]) {
    if (!toolFor(m[1]!, ctx)) continue;
    // The comma where the space was, "get" where the verb starts: the clause points at the verb as written.
    const text = ',get'.padEnd(m[0].length, ' ');
    buf.text = buf.text.slice(0, m.index) + text + buf.text.slice(m.index + m[0].length);
  }
}

/**
 * The approver a clause asks to decide ("get a supervisor", "ask a manager first", "a supervisor
 * approves it first"), when no tool of the catalog asks one: the question says how Keel gates a
 * call on a person instead of naming the nearest tool.
 */
export function approverAsked(text: string): string | undefined {
  const m =
    /\b(?:get|ask|have|loop in|escalate to|involve|page|call|check with|run it by|go to)\s+(?:it\s+(?:to|by)\s+)?(?:a|an|the|my|our|their)?\s*([a-z]+)\b/.exec(
      text,
    ) ?? /\b([a-z]+)\s+(?:approves?|signs? off|oks?|okays?|decides?)\b/.exec(text);
  return m && APPROVERS.has(m[1]!) ? m[1] : undefined;
}

/**
 * Whether a clause says a sign-off as the time an action waits for ("once their manager has
 * approved", "after the manager signs off"): not a trigger, whatever word it starts with.
 */
export function signoffAsTime(text: string): boolean {
  const m = new RegExp(String.raw`\b(?:once|after|when)\s+${WHOSE}([a-z]+?)(?:s|'s|s')?\s+${SIGNED}\b`).exec(
    text,
  );
  return m !== null && APPROVERS.has(m[1]!);
}

/**
 * "ask me first if it's over $100", "check with me first when it's above $100", "ask me before
 * paying anything over $100": an approval of only some calls. A spec cannot say it (a destructive
 * step waits for every call unless the version is AUTONOMOUS); a tenant policy rule can. Asked,
 * never read as a test of which events run at all (that drafted "pay only what is over $100").
 */
const SOME_CALLS =
  /\b(?:ask|check with|ping|consult|run it by)\s+(?:me|us|a person|someone|somebody|my manager|a manager|the team lead|a supervisor)\s+(?:(?:first|beforehand)\s*,?\s*(?:if|when|whenever|unless|for|on)\b|before\s+[a-z]+ing\s+(?:(?:(?:it|them|anything|any|those|ones|one|an?)\s+)?(?:if|when|whenever|unless|over|above|more than|bigger than|larger than|greater than|under|below|less than|that|which|of|for|on)\b|(?!(?:it|them|the|a|an|their|his|her|this|that|these|those|anything|everything|each|every|any|out|back|up|money|refunds?|payments?|expenses?|claims?|invoices?|payouts?)\b)[a-z]+\s+(?:expenses?|claims?|invoices?|refunds?|payouts?|requests?|ones|orders?|tickets?|posts?|reports?|sellers?|customers?|vendors?|employees?|accounts?|users?)\b))[^.;!?]*/;

export function askSomeCallsApproval(lower: string, ctx: RequestContext): void {
  const m = SOME_CALLS.exec(lower.replace(/"q[0-9]+"/g, 'the text'));
  if (!m) return;
  const said = m[0].trim().replace(/[,\s]+$/, '');
  ctx.questions.push({
    about: 'approval',
    question: `"${said}" makes only some calls wait for a person, and a draft cannot say that: a destructive step waits for a person before every call unless the version is AUTONOMOUS, and a tenant policy rule can make only some calls wait (outcome: require_approval, with a when). Should every call wait for a person, or should a policy decide which?`,
  });
}
