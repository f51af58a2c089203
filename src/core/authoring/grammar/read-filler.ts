/**
 * What a person adds that changes nothing a draft says, read as such rather than asked about:
 * "..., thats it" / "that's all" / "nothing else (for now)" after the last action; an else that
 * does nothing (", otherwise do nothing", "else leave it alone": Assumed); a polite lead
 * ("Could you set things up so that ..."); a purpose ("for our records", "just in case", Assumed); a reason given for the
 * rule ("analytics viewer requests r low risk, just grant them", "refunds under $20 are safe");
 * and a restatement of where an argument comes from: "for whatever system / role / number of days
 * they asked for" (each step takes the event's own values, as it would anyway), "regardless of
 * the role asked for" (the role is the one the request says elsewhere, "grant editor", in every
 * step that takes a role), and of the time asked for: "for however many days they asked", "for as
 * long as they asked", "no matter how long they asked for" (the catalog's one argument that counts
 * time). Each one read is listed under "Assumed"; a restatement that names no
 * field or argument of the catalog stays in the text and is asked about. Who does by hand what the
 * workflow leaves out ("finance does that by hand", "legal wants to eyeball it first") is a reason
 * too, never a step.
 */
import { lemmas } from '../request-words.ts';
import { timedArgs } from './read-durations.ts';
import { cutOut, type DraftStep, type RequestContext, type RequestText } from './request-context.ts';
import { toolWords } from './tool-words.ts';

const THATS_IT =
  /(?:,\s*|\s+-\s+|\s+)(?:(?:and|so)\s+)?(?:that'?s it|that'?s all|that is all|that is it|nothing else|no more steps)(?: for now| for the moment| at the moment| for today)?(?=\s*(?:$|[.!;,]))/g;

/** "export their data first for our records": why an action is asked for, not what it does. */
const PURPOSE =
  /\b(?:for (?:our|the|your) records?|for reference|just in case|to be safe)\b(?=\s*(?:$|[.!;,]|\bthen\b|\band\b))/g;

/**
 * ", otherwise do nothing", ". else just leave it", "anything else, leave it", "nobody else": an
 * else with no step; the test alone stands (nothing runs for the rest without it).
 */
export const NO_OP_ELSE =
  /[,;.]?\s*\b(?:(?:otherwise|else|if not|(?:for\s+)?(?:everything|anything|everyone|anyone|all the rest|the rest)(?:\s+else)?)\s*[,:]?\s*(?:->\s*|→\s*)?(?:just\s+)?(?:do\s+nothing|nothing|no\s+action|(?:leave|ignore|skip)\s+(?:it|them|that)(?:\s+(?:alone|be|as\s+is))?|don'?t\s+do\s+anything|do\s+not\s+do\s+anything)|(?:nobody|no\s+one|noone|none)\s+else)\s*(?=[.;!?]|$)/g;
/** "Could you set things up so that ...", "can we make it so ...", "we'd like (to)": a polite lead to the rule itself. */
const POLITE_LEAD =
  /\b(?:could|can|would|will) (?:you|we|u) (?:please )?(?:set (?:things|this|it|that) up|make it|arrange (?:it|things)|configure (?:it|things|this)|set it)(?: so)?(?: that)?\b|\b(?:we|i)(?:'d| would) (?:like|love)\b(?: (?:you )?to\b)?/g;

/**
 * "finance does that by hand", "we handle those by hand", "a human does the rest", "legal wants to
 * eyeball it first", "payroll sorts the payment manually": who does what the workflow leaves out,
 * said as its own clause (after a comma, a dash, a full stop or "as"/"since"/"because").
 */
/** Where a clause of who does it starts: the text's start, a mark, a dash, "as", "since", "because". */
const CLAUSE_START = String.raw`(?<=(?:^|[,;.!(]|\s-|\s–|\bas|\bsince|\bbecause|\bcos)\s*)`;

const BY_HAND = new RegExp(
  String.raw`${CLAUSE_START}(?:(?:the|our|a|an)\s+)?(?:[a-z']+\s+){0,2}?(?:(?:does|do|will do|handles?|sorts?|processes|takes care of|deals? with|reviews?|checks?|looks? at|goes? through)\s+(?:(?:that|those|it|them|this|these|(?:the )?[a-z]+)\s+)?(?:(?:for (?:those|them|these)|by hand|manually|themselves|offline|separately|outside (?:of )?(?:this|the workflow))\b)|wants? to (?:eyeball|check|review|look at|see|approve|sign off) (?:it|them|those|that|everything)(?: first)?\b|(?:does|do|handles?|takes care of|deals? with) the rest\b)(?=\s*(?:$|[,;.!)]))`,
  'g',
);

/**
 * "someone will pay it manually", "we'll refund them by hand": a person, not the workflow, does it.
 * Only a person said as such, an object that is the events' own ("it", "them") and no approval
 * ("finance must approve them manually" is a sign-off the draft would keep: left to be read).
 */
const BY_SOMEONE = new RegExp(
  String.raw`${CLAUSE_START}(?:someone|somebody|a human|a person|a teammate|we|i|they)(?:\s+(?:will|can|should|must|has to|have to)|'ll)\s+(?!(?:approve|sign|ok|okay|review|authori[sz]e|check)\b)(?<verb>[a-z]+)\s+(?:(?:it|them|that|those|this|these)\s+)?(?:by hand|manually|themselves|offline|separately)(?=\s*(?:$|[,;.!)]))`,
  'g',
);

const REASON =
  /\b([a-z]+s)\s+(?:are|r|'re|re|is)\s+(?:(?:pretty|quite|very|really|usually|generally|always|all)\s+)?(low[- ]risk|no[- ]risk|safe|harmless|routine|trivial|no big deal|not a big deal)\b(?=\s*(?:[,;:.!]|\s-\s|$|\bso\b|\bjust\b))/g;

/** Who asked: the event's person, said as a pronoun or a noun. */
const ASKER =
  'they|he|she|the person|the employee|the requester|someone|people|users|reporters|the reporters?';
/** How the person asked for it. */
const ASKED = 'asked for|requested|asks for|wants|wanted|asked|requests|chose|picked';
/** A field or argument in words: "role", "leave type", "number of days". */
const ITEM = String.raw`[a-z]+(?: (?!(?:asked|requested|asks|requests|wants|wanted|want|chose|picked|they|he|she|the|someone|people|users|reporters|was|were|is|for|or|and|of)\b)[a-z]+)?(?: of [a-z]+)?`;
const RESTATED = new RegExp(
  String.raw`\b(?:for\s+)?(regardless of|irrespective of|no matter(?: what| which)?|(?:it\s+)?(?:doesn'?t|does not) matter (?:what|which)|whatever|however many|as many)\s+(?:the\s+)?(${ITEM}(?:\s*(?:/|,|\bor\b|\band\b)\s*${ITEM})*)(?:\s+(?:as\s+)?(?:(?:${ASKER})\s+)?(?:${ASKED})(?:\s+for)?)?`,
  'g',
);
/** A bound or an exception said right after a restatement of the time asked for. */
const BOUND_AFTER =
  /^\s*[,;(-]?\s*(?:(?:but|and|though|tho)\s+)?(?:capped|cap|max(?:imum)?|up to|at most|no more than|not more than|never more than|limit(?:ed)?|except|unless|but|only|if|within|under|below|less than|[0-9]+\s*(?:days?\s*)?(?:tops|max(?:imum)?|at most|at the most|or less|or fewer))\b/;

/**
 * "no matter how long they asked for", "for however long they asked": the time asked for, which
 * is the one argument of the catalog that counts time (read-durations.ts).
 */
const HOW_LONG = new RegExp(
  String.raw`\b(?:for\s+)?(no matter how long|regardless of how long|however long|as long as)\s+(?:${ASKER})\s+(?:${ASKED})(?:\s+for)?(?:\s+(?:it|access))?(?=\s*(?:$|[,;.!)]|\band\b|\bthen\b))`,
  'g',
);

/** A restatement read: the arguments it names, and whether it says "regardless" (a value said elsewhere). */
export interface Restated {
  readonly args: readonly string[];
  readonly regardless: boolean;
  /** "however many days they asked", "for as long as they asked": the event's own, said outright. */
  readonly asked?: boolean;
  readonly said: string;
}

/** The argument or event field `words` name ("role", "number of days" -> duration_days), if one. */
function argNamed(words: string, ctx: RequestContext, event: string | undefined): string | undefined {
  const last = words.split(/\s+/).pop()!;
  const forms = new Set([last, last.replace(/s$/, '')]);
  const names = new Set<string>();
  for (const t of ctx.tools) for (const a of Object.keys(t.args.properties ?? {})) names.add(a);
  for (const p of ctx.events?.find((e) => e.type === event)?.payload ?? []) names.add(p);
  // "leave type": the name said whole.
  const whole = words.trim().replace(/\s+/g, '_');
  if (names.has(whole)) return whole;
  const hits = [...names].filter((n) => forms.has(n) || n.split('_').some((p) => forms.has(p)));
  return hits.length === 1 ? hits[0] : undefined;
}

/** Cuts "thats it" and reasons given for the rule out of the text (see the file's comment). */
export function readFiller(buf: RequestText, raw: string, ctx: RequestContext): void {
  for (const m of [...buf.text.matchAll(THATS_IT)]) cutOut(buf, m as RegExpExecArray);
  for (const m of [...buf.text.matchAll(POLITE_LEAD)]) cutOut(buf, m as RegExpExecArray);
  for (const m of [...buf.text.matchAll(NO_OP_ELSE)]) {
    cutOut(buf, m as RegExpExecArray);
    ctx.assumptions.push(
      `"${raw.slice(m.index, m.index + m[0].length).replace(/^[,;.]?\s*/, '')}" is read as no step: nothing runs when the test before it does not hold.`,
    );
  }
  for (const m of [...buf.text.matchAll(PURPOSE)]) {
    cutOut(buf, m as RegExpExecArray);
    ctx.assumptions.push(
      `"${raw.slice(m.index, m.index + m[0].length)}" is read as why; the workflow does nothing of its own for it.`,
    );
  }
  // (By someone: only an action the catalog's tools do, "pay", "refund" — "confirm", "vet" are
  // sign-offs — and only in a sentence said of some of the events ("anything bigger just approve it,
  // someone will pay it manually"): said of all of them, it contradicts the step and is asked.)
  const acts = (m: RegExpMatchArray) =>
    lemmas(m.groups?.verb ?? '').some((l) =>
      ctx.tools.some((t) => toolWords(t).name.has(l) || toolWords(t).first.has(l)),
    ) &&
    /\b(?:otherwise|else|anything|everything|the rest|over|above|more than|bigger|larger|under|below|less than|smaller)\b|:/.test(
      buf.text
        .slice(0, m.index)
        .split(/[.;!?](?:\s|$)/)
        .at(-1) ?? '',
    );
  for (const m of [...buf.text.matchAll(BY_HAND), ...[...buf.text.matchAll(BY_SOMEONE)].filter(acts)]) {
    cutOut(buf, m as RegExpExecArray);
    ctx.assumptions.push(
      `"${raw.slice(m.index, m.index + m[0].length).trim()}" is read as who does what the workflow leaves out, not a step.`,
    );
  }
  for (const m of [...buf.text.matchAll(REASON)]) {
    const at = m.index + m[1]!.length;
    const said = raw.slice(at, m.index + m[0].length).trim();
    cutOut(buf, { index: at, 0: m[0].slice(m[1]!.length) });
    ctx.assumptions.push(`"${said}" is read as why; it is not tested (no event field says it).`);
  }
}

/** Cuts restatements of where arguments come from; read once the trigger event is known. */
export function readRestated(
  buf: RequestText,
  raw: string,
  event: string | undefined,
  ctx: RequestContext,
): Restated[] {
  const out: Restated[] = [];
  // (The time asked for is the event's own: an event with no such field asked for none.)
  const payload = ctx.events?.find((e) => e.type === event)?.payload ?? [];
  for (const m of [...buf.text.matchAll(RESTATED)]) {
    const asked = /^(?:however many|as many)$/.test(m[1]!);
    if (asked && BOUND_AFTER.test(raw.slice(m.index + m[0].length).toLowerCase())) continue;
    const items = m[2]!.split(/\s*(?:\/|,|\bor\b|\band\b)\s*/).filter(Boolean);
    const args = items.map((i) => argNamed(i, ctx, event));
    if (args.some((a) => a === undefined)) continue;
    if (asked && !args.every((a) => payload.includes(a!))) continue;
    out.push({
      args: args as string[],
      regardless: !asked && m[1] !== 'whatever',
      ...(asked ? { asked } : {}),
      said: raw.slice(m.index, m.index + m[0].length).trim(),
    });
    cutOut(buf, m as RegExpExecArray);
  }
  const timed = timedArgs(ctx.tools);
  if (timed?.names.length === 1 && payload.includes(timed.names[0]!))
    for (const m of [...buf.text.matchAll(HOW_LONG)]) {
      // ("for as long as they asked": "as long as" without "for" leads a test, not a restatement.
      // "..., capped at 14", "... but 1 day for admin": a bound or an exception after it: asked.)
      if (m[1] === 'as long as' && !/^for\s/.test(m[0])) continue;
      if (BOUND_AFTER.test(raw.slice(m.index + m[0].length).toLowerCase())) continue;
      const regardless = /^(?:no matter|regardless)/.test(m[1]!);
      out.push({
        args: timed.names,
        regardless,
        ...(regardless ? {} : { asked: true }),
        said: raw.slice(m.index, m.index + m[0].length).trim(),
      });
      cutOut(buf, m as RegExpExecArray);
    }
  return out;
}

/**
 * Applies the restatements to the drafted steps: a value said for the argument in one step
 * ("grant editor") is that argument's in every step that takes it from the event ("regardless
 * of the role asked for"); otherwise the event's own value stays. Two values said: a question.
 */
export function applyRestated(
  rs: readonly Restated[],
  steps: readonly DraftStep[],
  ctx: RequestContext,
): void {
  for (const r of rs) {
    const own: string[] = [];
    for (const arg of r.args) {
      const said = new Set(
        steps
          .map((s) => s.step.args?.[arg])
          .filter((v) => v !== undefined && !(typeof v === 'string' && v.includes('{{'))),
      );
      if (said.size === 0 || (!r.regardless && !r.asked)) {
        own.push(arg);
        continue;
      }
      // ("get a sign-off for 30 days, then grant it for as long as they asked": the event's own, said
      // outright, and a value said: which step takes which is asked.)
      if (r.asked) {
        ctx.questions.push({
          about: 'request',
          question: `"${r.said}" keeps the event's own ${arg}, but the request also says ${[...said].map((v) => JSON.stringify(v)).join(' and ')}. Which one is meant, and for which step?`,
        });
        continue;
      }
      if (said.size > 1) {
        ctx.questions.push({
          about: 'request',
          question: `"${r.said}": the request says ${arg} ${[...said].map((v) => JSON.stringify(v)).join(' and ')}. Which one is meant?`,
        });
        continue;
      }
      const value = [...said][0];
      for (const s of steps) {
        const args = s.step.args as Record<string, unknown> | undefined;
        if (args && typeof args[arg] === 'string' && (args[arg] as string).includes('{{event.'))
          args[arg] = value;
      }
      ctx.assumptions.push(
        `"${r.said}" is read as: ${arg} is ${JSON.stringify(value)} in every step that takes it, whatever the event says.`,
      );
    }
    if (own.length > 0)
      ctx.assumptions.push(
        `"${r.said}" is read as: ${own.join(', ')} ${own.length === 1 ? 'is' : 'are'} the event's own, as each step takes ${own.length === 1 ? 'it' : 'them'}.`,
      );
  }
}
