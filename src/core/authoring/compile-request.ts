/**
 * The offline compiler: a request in plain words ("when a refund is requested, reply, then refund
 * anyone under $50") -> a DRAFT workflow spec over a tool catalog, plus the questions it could not
 * answer itself. The grammar is docs/authoring.md's: triggers, conditions (money bounds, currency,
 * customer groups), sequences, approvals, limits; tools are found by name and description, and
 * arguments filled from the trigger event by the documented rules.
 *
 * Pure and deterministic: the same request and catalog always give the same result. It never
 * names a tool that is not in the catalog and never guesses: whatever is ambiguous or unmapped is
 * a question. It does not validate; `draftSpec` (draft-spec.ts) does, with the spec's own checks.
 */
import { formatUsd, usdToCents } from '../money.ts';
import { isSpecId } from '../spec/validate-spec.ts';
import type { StepSpec, TriggerSpec, WorkflowSpec } from '../spec/workflow-spec.ts';
import type { ToolDescriptor } from '../tools/tool-descriptor.ts';
import type { ExplainPolicy } from './explain-spec.ts';
import {
  ACTION_GROUPS,
  EVENT_VERB_GROUPS,
  FILLER,
  GENERIC_VERBS,
  groupOf,
  lemmas,
  numberWord,
  wordsOf,
} from './request-words.ts';

/** An event the tenant's workflows can be started by, and the payload fields it carries. */
export interface EventShape {
  readonly type: string;
  readonly payload: readonly string[];
}

/** What a request is compiled against: the tenant's tools and, when known, its events. */
export interface DraftCatalog {
  readonly tools: readonly ToolDescriptor[];
  readonly events?: readonly EventShape[];
  /** The tenant's policy, read against the draft in its read-back (never used to compile). */
  readonly policy?: ExplainPolicy;
}

/** Something the compiler could not decide: `about` names the part, `candidates` the choices. */
export interface DraftQuestion {
  readonly about: string;
  readonly question: string;
  readonly candidates?: readonly string[];
}

export interface CompiledRequest {
  /** The spec as far as the request maps; absent when not even one step could be built. */
  readonly spec?: WorkflowSpec;
  readonly questions: readonly DraftQuestion[];
  /** What the compiler read that needs no answer ("close_ticket is destructive: it waits ..."). */
  readonly notes: readonly string[];
}

export interface CompileOptions {
  /** The workflow id; derived from the trigger and steps when absent. */
  readonly id?: string;
}

/** At most this many characters of a request are read. */
export const MAX_REQUEST_LENGTH = 2000;

const TRIGGER_START =
  /(?<=^|[.;!?]\s+)(?:if)(?= (?:a|an|the|someone|somebody|anyone|any|an?y?one|people|we|they) )|\b(whenever|when|each time|every time|as soon as|once|on every|on each|for every|for each|any time|anytime|if ever|after(?= (?:a|an|each|every|any|the) [a-z]+ (?:is|are|gets|get|has|comes|arrives)\b))\b/;

/** Phrases read as one word (padded to their length, so positions in the text stay put). */
const PHRASES: readonly [RegExp, string][] = [
  [
    /\bgive (?:them|the customer|him|her|people|customers)? ?(?:their |the |her |his )?money back\b/g,
    'refund',
  ],
  [/\bpay (?:them|the customer|him|her) back\b/g, 'refund'],
  [/\bsend (?:them |the customer )?(?:a |their )?refund\b/g, 'refund'],
  [/\bwrite back(?: to)?\b/g, 'reply'],
  [/\bget back to\b/g, 'reply'],
  [/\blook up\b/g, 'lookup'],
  [/\bsign[- ]off\b/g, 'approval'],
  [/\bgreen[- ]light\b/g, 'approval'],
  [/\bok\b(?= (?:first|before))/g, 'approval'],
];
const APPROVAL_PATTERNS: readonly RegExp[] = [
  /\b(?:ask|check with|consult|ping) (?:me|us|a person|a human|someone|my manager|a manager|the team lead|a supervisor)(?: first)? before (?:you )?(.+)$/,
  /\b(?:get|wait for|require|need) (?:my|our|their|the|an?|a person's|a manager's|human|explicit)? ?(?:approval|ok|okay|sign-off|signoff|go-ahead)(?: first)? (?:before|for) (?:you )?(.+)$/,
  /\bnever (.+?) without (?:my |our |an? |a person's |a manager's |human |explicit )?(?:approval|asking|permission|sign-off|ok|okay|go-ahead)(?: first)?\b(.*)$/,
  /\bdo(?:n't| not) (.+?) (?:without|until|unless) (?:i|we|someone|a person|a manager) (?:approve|approves|say so|ok it|okay it|sign off)\b(.*)$/,
  /\bonly (.+?) (?:after|once|when) (?:i|we|someone|a person|a manager) (?:approve|approves|approved|has approved|ok it|okays it)\b(.*)$/,
  /^(.+?) (?:needs|need|requires|require|must get|must have|should need|should get) (?:my |our |an? |a person's |a manager's |human |explicit )?(?:approval|sign-off|signoff|ok|okay)\b(.*)$/,
  /^(.+?) (?:with|after) (?:my|our|a person's|a manager's) (?:approval|sign-off|ok|okay)\b(.*)$/,
];
const NO_APPROVAL =
  /\b(?:without (?:asking|approval|waiting)|no approval|don't ask|do not ask|no need to ask)\b/;
const UNMAPPED_MARKERS =
  /\b(if|unless|except|weekdays?|weekends?|business hours|monday|tuesday|wednesday|thursday|friday|saturday|sunday|o'clock|[0-9]+ ?(?:am|pm)|percent|between|twice|half|halves|double|triple|quarter|partial|partially|part of|portion|retry|retries|every day|daily|hourly|weekly|minutes?|hours?|days?)\b|%/;

/** The request's text as the readers consume it: what one reads is blanked for the next. */
interface Buffer {
  text: string;
}

function cutOut(buf: Buffer, m: { index: number; 0: string }): void {
  buf.text = buf.text.slice(0, m.index) + ' '.repeat(m[0].length) + buf.text.slice(m.index + m[0].length);
}

interface Clause {
  /** Lowercased text. */
  text: string;
  /** The same characters as written (quotes kept as placeholders in `text`). */
  raw: string;
  approval: boolean;
}

interface Ctx {
  readonly tools: readonly ToolDescriptor[];
  readonly events: readonly EventShape[] | undefined;
  readonly questions: DraftQuestion[];
  readonly notes: string[];
  readonly quotes: string[];
}

/** Compiles `request` against `catalog`. Deterministic; never throws for any string. */
export function compileRequest(
  request: string,
  catalog: DraftCatalog,
  options: CompileOptions = {},
): CompiledRequest {
  const ctx: Ctx = {
    tools: [...catalog.tools].filter((t) => !t.name.startsWith('core.')).sort((a, b) => cmp(a.name, b.name)),
    events: catalog.events ? [...catalog.events].sort((a, b) => cmp(a.type, b.type)) : undefined,
    questions: [],
    notes: [],
    quotes: [],
  };
  const { lower, raw } = normalise(request.slice(0, MAX_REQUEST_LENGTH), ctx.quotes);
  if (lower.trim() === '') {
    ctx.questions.push({ about: 'request', question: 'What should the workflow do? The request is empty.' });
    return { questions: ctx.questions, notes: ctx.notes };
  }

  // Limits, conditions and the trigger are read out of the whole text first; what is left are actions.
  let phrased = lower;
  for (const [re, word] of PHRASES) phrased = phrased.replace(re, (all) => word.padEnd(all.length, ' '));
  const buf: Buffer = { text: phrased };
  const maxSteps = readStepLimit(buf, ctx);
  const money = readMoney(buf);
  const currency = readCurrency(buf);
  const audience = readAudience(buf);
  const trigger = readTrigger(buf, ctx);
  const clauses = splitClauses(buf.text, raw);

  const steps: { step: StepSpec; tool: ToolDescriptor; approval: boolean }[] = [];
  for (const c of clauses) {
    const tool = mapTool(c, ctx);
    if (!tool) continue;
    const existing = steps.find((s) => s.tool.name === tool.name);
    if (existing && c.approval) {
      existing.approval = true;
      continue;
    }
    const args = fillArgs(c, tool, trigger.event, ctx);
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
    });
  }
  for (const s of steps) if (s.approval) checkApproval(s.step, s.tool, ctx);
  if (NO_APPROVAL.test(lower))
    for (const s of steps)
      if (s.tool.destructive)
        ctx.notes.push(
          `${s.tool.name} is destructive: it waits for a person's approval until the version is promoted to AUTONOMOUS; a draft cannot skip that.`,
        );

  // Conditions become the trigger's `when`; money bounds become the spend cap.
  const when: string[] = [];
  const event = trigger.event;
  if (currency !== undefined) {
    const f = payloadField(event, /currenc/, 'currency', 'the currency', ctx);
    if (f) when.push(`payload.${f} == ${JSON.stringify(currency)}`);
  }
  if (audience !== undefined) {
    const cond = audienceCondition(audience, event, ctx);
    if (cond) when.push(cond);
  }
  const moneyTools = steps.filter((s) => s.tool.cost?.fromArg !== undefined);
  for (const lower of money.lowerBounds) {
    const f = payloadField(
      event,
      /amount|total|value|price|cost|sum/,
      moneyTools[0]?.tool.cost?.fromArg ?? 'amount',
      'the amount',
      ctx,
    );
    if (f) when.push(`payload.${f} ${lower.op} ${lower.usd}`);
  }
  let maxCostUsd: number;
  const caps = [...new Set(money.caps)];
  if (caps.length > 1) {
    ctx.questions.push({
      about: 'limits.maxCostUsd',
      question: `The request names ${caps.map((c) => `$${formatUsd(c)}`).join(' and ')} as limits, and a spec has one spend cap per run. Which one should a run stay within?`,
      candidates: caps.map((c) => `$${formatUsd(c)}`),
    });
    maxCostUsd = Math.min(...caps);
  } else if (caps.length === 1) maxCostUsd = caps[0]!;
  else if (moneyTools.length > 0) {
    ctx.questions.push({
      about: 'limits.maxCostUsd',
      question: `How much may one run spend? ${moneyTools.map((s) => `${s.tool.name} costs its ${s.tool.cost!.fromArg}`).join('; ')}, and with no spend cap every such call is refused. Say e.g. "under $50" or "no more than $200 a run".`,
    });
    maxCostUsd = 0;
  }
  // Summed in integer cents: a sum of doubles could lose or invent a cent.
  else maxCostUsd = steps.reduce((n, s) => n + usdToCents(s.tool.cost?.fixedUsd ?? 0), 0) / 100;

  if (maxSteps !== undefined && maxSteps < steps.length)
    ctx.questions.push({
      about: 'limits.maxSteps',
      question: `The request allows at most ${maxSteps} step${maxSteps === 1 ? '' : 's'}, but names ${steps.length}: ${steps.map((s) => s.step.name).join(', ')}. Which should go, or may it take ${steps.length}?`,
    });
  if (steps.length === 0) {
    if (!ctx.questions.some((q) => q.about.startsWith('steps')))
      ctx.questions.push({
        about: 'steps',
        question: `What should the workflow do? No action in the request matches a tool; the catalog has ${ctx.tools.map((t) => t.name).join(', ') || 'no tools'}.`,
        candidates: ctx.tools.map((t) => t.name),
      });
    return { questions: dedupe(ctx.questions), notes: ctx.notes };
  }
  const triggers: TriggerSpec[] = event
    ? [{ event, ...(when.length ? { when: when.join(' and ') } : {}) }]
    : [];
  const id =
    options.id ??
    deriveId(
      event,
      steps.map((s) => s.step.name),
    );
  const spec: WorkflowSpec = {
    id,
    version: 1,
    status: 'DRAFT',
    description: describe(request),
    triggers,
    steps: steps.map((s) => s.step),
    limits: { maxSteps: Math.max(maxSteps ?? steps.length, 1), maxCostUsd },
  };
  return { spec, questions: dedupe(ctx.questions), notes: ctx.notes };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function dedupe(qs: DraftQuestion[]): DraftQuestion[] {
  const seen = new Set<string>();
  return qs.filter((q) => {
    if (seen.has(q.question)) return false;
    seen.add(q.question);
    return true;
  });
}

function describe(request: string): string {
  const one = request.replace(/\s+/g, ' ').trim();
  return one.length > 300 ? `${one.slice(0, 297)}...` : one;
}

/**
 * Lowercase text of the same length as `raw`, quoted text replaced by `"q<n>"` placeholders (the
 * quoted text is kept in `quotes`), curly quotes and dashes made plain.
 */
function normalise(request: string, quotes: string[]): { lower: string; raw: string } {
  let raw = request
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u2013\u2014]/g, '-');
  raw = raw.replace(
    /"([^"]*)"|(^|[\s(:])'([^']+)'(?=[\s,.;:!?)]|$)/g,
    (all, dq: string | undefined, pre: string | undefined, sq: string | undefined) => {
      const text = dq ?? sq ?? '';
      quotes.push(text);
      const mark = `"q${quotes.length - 1}"`;
      return `${pre ?? ''}${mark}`.padEnd(all.length, ' ');
    },
  );
  raw = raw.replace(/\s/g, ' ');
  const lower = [...raw]
    .map((ch) => (ch.toLowerCase().length === ch.length ? ch.toLowerCase() : ch))
    .join('');
  return { lower, raw };
}

function readStepLimit(buf: Buffer, ctx: Ctx): number | undefined {
  const re =
    /\b(?:at most|no more than|not more than|up to|max(?:imum)?(?: of)?|limit(?: it| runs?)? to|in|within|never more than|never over)\s+([a-z0-9]+)\s+steps?\b(?:\s+(?:a|per|each)\s+run)?/;
  const m = re.exec(buf.text);
  if (!m) return undefined;
  cutOut(buf, m);
  const n = numberWord(m[1]!);
  if (n === undefined || n < 1) {
    ctx.questions.push({
      about: 'limits.maxSteps',
      question: `How many steps may a run take? "${m[1]}" is not a whole number of at least 1.`,
    });
    return undefined;
  }
  return n;
}

interface MoneyBounds {
  caps: number[];
  lowerBounds: { op: '>' | '>='; usd: number }[];
}

const NUMBER = String.raw`(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]{1,2})?`;
const AMOUNT = String.raw`(?:\$\s?(${NUMBER})|(${NUMBER})\s?(?:dollars|usd|bucks))`;
/** "if it's under $30": the condition words before a money bound belong to it. */
const IF_IT = `(?:(?:only |but only )?if (?:it's |it is |they're |they are |the (?:amount|refund|total|invoice|sum|payment) is |that's |that is )?)?`;

function readMoney(buf: Buffer): MoneyBounds {
  const out: MoneyBounds = { caps: [], lowerBounds: [] };
  const amount = (m: RegExpExecArray, at: number) => Number((m[at] ?? m[at + 1] ?? '0').replace(/,/g, ''));
  const upper = new RegExp(
    String.raw`\b${IF_IT}(?:under|below|less than|up to|at most|no more than|not more than|not over|never more than|never over|max(?:imum)?(?: of)?|capped at|a cap of|cap(?: it| runs?| spending| the spend| refunds?)?(?: at| of| to|:)|limit(?: it| runs?| spending| refunds?)?(?: to| of| at)?|budget(?: of)?|spend(?:ing)? (?:at most|no more than|up to|under|less than)|(?:don't|do not|never) spend more than|within|smaller than|beneath)\s+${AMOUNT}(?:\s+(?:a|per|each|in a|for (?:a|each|one))\s+(?:run|workflow run|go|time))?(?:\s+in total)?`,
    'g',
  );
  const unless = new RegExp(
    String.raw`\bunless (?:it's |it is |they're |they are |the (?:amount|refund|total|invoice|sum|payment) is )?(?:over|above|more than|greater than|bigger than|larger than)\s+${AMOUNT}`,
    'g',
  );
  for (let m = unless.exec(buf.text); m; m = unless.exec(buf.text)) {
    out.caps.push(amount(m, 1));
    cutOut(buf, m);
  }
  // "never refund more than $50 (a run)": a negated bound with its verb between is a cap, never a
  // condition that the amount be over it (the opposite); the verb goes with it, as the action is
  // named elsewhere ("refund them, but never refund more than $50").
  const negated = new RegExp(
    String.raw`\b(?:never|don't|do not|not|no one should|nobody should)\s+(?:[a-z']+\s+){1,3}?(?:more than|over|above|in excess of|greater than|beyond)\s+${AMOUNT}(?:\s+(?:a|per|each|in a|for (?:a|each|one))\s+(?:run|workflow run|go|time))?(?:\s+in total)?`,
    'g',
  );
  for (let m = negated.exec(buf.text); m; m = negated.exec(buf.text)) {
    out.caps.push(amount(m, 1));
    cutOut(buf, m);
  }
  const orLess = new RegExp(String.raw`${AMOUNT}\s+or (?:less|under|below)\b`, 'g');
  const lowerRe = new RegExp(
    String.raw`\b${IF_IT}(over|above|more than|greater than|larger than|bigger than|at least|exceeding)\s+${AMOUNT}`,
    'g',
  );
  for (let m = upper.exec(buf.text); m; m = upper.exec(buf.text)) {
    out.caps.push(amount(m, 1));
    cutOut(buf, m);
  }
  for (let m = orLess.exec(buf.text); m; m = orLess.exec(buf.text)) {
    out.caps.push(amount(m, 1));
    cutOut(buf, m);
  }
  for (let m = lowerRe.exec(buf.text); m; m = lowerRe.exec(buf.text)) {
    out.lowerBounds.push({ op: m[1] === 'at least' ? '>=' : '>', usd: amount(m, 2) });
    cutOut(buf, m);
  }
  return out;
}

function readCurrency(buf: Buffer): string | undefined {
  const re =
    /\b(?:(?:only |paid |amounts? |refunds? |charged )?in|in the currency|currency(?: is)?)\s+(usd|us dollars|dollars|eur|euros?|gbp|pounds|sterling|cad|aud|jpy|yen)\b/;
  const m = re.exec(buf.text);
  if (!m) return undefined;
  cutOut(buf, m);
  const w = m[1]!;
  const codes: Record<string, string> = {
    usd: 'USD',
    'us dollars': 'USD',
    dollars: 'USD',
    eur: 'EUR',
    euro: 'EUR',
    euros: 'EUR',
    gbp: 'GBP',
    pounds: 'GBP',
    sterling: 'GBP',
    cad: 'CAD',
    aud: 'AUD',
    jpy: 'JPY',
    yen: 'JPY',
  };
  return codes[w];
}

function readAudience(buf: Buffer): string | undefined {
  const res = [
    /\b(?:for|from|to) (?:our |the )?([a-z][a-z0-9-]*) (?:customers|users|accounts|clients|members|subscribers|tier)\b(?: only)?/,
    /\b(?:only )?([a-z][a-z0-9-]*) (?:customers|clients|members|subscribers) only\b/,
    /\b(?:by|from) (?:a|an) ([a-z][a-z0-9-]*) (?:customer|user|client|member|subscriber)\b/,
    /\bif the (?:customer|user|account|client) is (?:a |an |on the )?([a-z][a-z0-9-]*)(?: customer| tier| plan)?\b/,
  ];
  const ignore = new Set([
    'all',
    'any',
    'our',
    'every',
    'each',
    'the',
    'new',
    'existing',
    'those',
    'these',
    'such',
    'other',
  ]);
  for (const re of res) {
    const m = re.exec(buf.text);
    if (m && !ignore.has(m[1]!)) {
      cutOut(buf, m);
      return m[1]!;
    }
  }
  return undefined;
}

/** The trigger event type the request names, and where its clause was. */
function readTrigger(buf: Buffer, ctx: Ctx): { event?: string } {
  const literal =
    /\b(?:on|when|event|after)\s+(?:the\s+)?(?:event\s+)?`?([a-z][a-z0-9_-]*\.[a-z][a-z0-9_.-]*[a-z0-9])`?/.exec(
      buf.text,
    );
  if (literal) {
    cutOut(buf, literal);
    const type = literal[1]!;
    if (ctx.events && !ctx.events.some((e) => e.type === type)) {
      ctx.questions.push({
        about: 'triggers',
        question: `No event ${type} is known. Which event starts this workflow? ${listOr(ctx.events.map((e) => e.type))}?`,
        candidates: ctx.events.map((e) => e.type),
      });
      return {};
    }
    return { event: type };
  }
  const start = TRIGGER_START.exec(buf.text);
  let clause: RegExpExecArray | null = null;
  if (start) {
    const rest = buf.text.slice(start.index);
    const end = /,|\bthen\b|:| - /.exec(rest.slice(start[0].length));
    const len = end ? start[0].length + end.index : sentenceEnd(rest);
    clause = Object.assign([rest.slice(0, len)], {
      index: start.index,
      input: buf.text,
    }) as unknown as RegExpExecArray;
  } else {
    // "On refund requests, ...", "For new tickets: ..."
    const m =
      /(?:^|[.;:]\s*|\b(?:on|for|after|with|to|handle|answer|respond to)\s+)((?:a |an |any |all |every |each |incoming )?(?:new )?[a-z]+ (?:requests?|tickets?|invoices?|reports?|submissions?|claims?|alerts?|incidents?))\b/.exec(
        buf.text,
      );
    const every = m
      ? null
      : /\b((?:every|each|any|all) (?:new |incoming )?[a-z]+(?: (?:received|submitted|approved|resolved|opened|flagged|requested|filed|created|closed|paid))?)\b/.exec(
          buf.text,
        );
    if (every) clause = every;
    if (m) {
      const at = m.index + m[0].length - m[1]!.length;
      clause = Object.assign([m[1]!], { index: at, input: buf.text }) as unknown as RegExpExecArray;
    }
  }
  if (!clause) {
    askTrigger(ctx, 'The request does not say what starts the workflow.');
    return {};
  }
  const words = clause[0].split(/[^a-z0-9_-]+/).filter(Boolean);
  cutOut(buf, clause);
  const verbIdx = words.findIndex((w, i) => i > 0 && groupOf(EVENT_VERB_GROUPS, w) !== undefined);
  const verbGroup = verbIdx >= 0 ? groupOf(EVENT_VERB_GROUPS, words[verbIdx]!) : undefined;
  const trig = new Set([
    'when',
    'whenever',
    'each',
    'every',
    'time',
    'as',
    'soon',
    'once',
    'on',
    'for',
    'after',
    'with',
  ]);
  const nouns = words.filter(
    (w, i) =>
      i !== verbIdx &&
      !trig.has(w) &&
      !FILLER.has(w) &&
      groupOf(EVENT_VERB_GROUPS, w) === undefined &&
      !/^(is|are|was|were|been|being|has|had|gets|got|comes|in|new|by|if)$/.test(w),
  );
  // "a new ticket": `new` is the event verb when no other is said.
  const group = verbGroup ?? (words.includes('new') ? groupOf(EVENT_VERB_GROUPS, 'new') : undefined);
  const nounLemmas = new Set(nouns.flatMap((n) => lemmas(n)));
  if (!ctx.events) {
    const noun = nouns[nouns.length - 1] ?? nouns[0];
    if (!noun || !group) {
      askTrigger(ctx, `I could not read an event from "${clause[0].trim()}".`);
      return {};
    }
    return { event: `${singular(noun)}.${group[0]}` };
  }
  const found = ctx.events.filter((e) => {
    const [noun = '', verb = ''] = splitType(e.type);
    const nounOk = noun.split(/[_-]/).some((n) => lemmas(n).some((l) => nounLemmas.has(l)));
    const verbOk = group
      ? group.includes(verb) || lemmas(verb).some((v) => group.includes(v))
      : lemmas(verb).some((v) => words.some((w) => lemmas(w).includes(v)));
    return nounOk && verbOk;
  });
  if (found.length === 1) {
    const unread = nouns.filter((n) => !known(ctx).has(n) && !lemmas(n).some((l) => known(ctx).has(l)));
    if (unread.length > 0)
      ctx.questions.push({
        about: 'triggers.when',
        question: `I could not read "${unread.join(' ')}" in "${clause[0].trim()}": no event field or tool of the catalog says it. Which field of the ${found[0]!.type} event should the trigger test, and against what?`,
      });
    return { event: found[0]!.type };
  }
  if (found.length > 1) {
    ctx.questions.push({
      about: 'triggers',
      question: `Which event starts this workflow: ${listOr(found.map((e) => e.type))}?`,
      candidates: found.map((e) => e.type),
    });
    return {};
  }
  askTrigger(ctx, `No known event matches "${clause[0].trim()}".`);
  return {};
}

/** Every word the catalog uses (tool names and descriptions, event types and payload fields), with lemmas. */
const vocabulary = new WeakMap<Ctx, Set<string>>();
function known(ctx: Ctx): Set<string> {
  let v = vocabulary.get(ctx);
  if (!v) {
    const text = [
      ...ctx.tools.flatMap((t) => [t.name, t.description]),
      ...(ctx.events ?? []).flatMap((e) => [e.type, ...e.payload]),
    ].join(' ');
    v = wordsOf(text);
    vocabulary.set(ctx, v);
  }
  return v;
}

function splitType(type: string): [string, string] {
  const i = type.lastIndexOf('.');
  return i < 0 ? [type, ''] : [type.slice(0, i), type.slice(i + 1)];
}

function sentenceEnd(s: string): number {
  const m = /[.;!?](\s|$)/.exec(s);
  return m ? m.index : s.length;
}

function singular(w: string): string {
  return w.endsWith('ies') ? `${w.slice(0, -3)}y` : w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w;
}

function askTrigger(ctx: Ctx, why: string): void {
  const known = ctx.events?.map((e) => e.type) ?? [];
  ctx.questions.push({
    about: 'triggers',
    question: `${why} Which event starts this workflow?${known.length ? ` ${listOr(known)}?` : ' Say e.g. "when a refund is requested".'}`,
    ...(known.length ? { candidates: known } : {}),
  });
}

function listOr(xs: readonly string[]): string {
  if (xs.length <= 1) return xs.join('');
  return `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`;
}

/** The action clauses, in the order they run ("A after B" runs B first). */
function splitClauses(text: string, raw: string): Clause[] {
  const out: Clause[] = [];
  const sentences: [number, number][] = [];
  let from = 0;
  const sep = /[.;!?](?=\s|$)|\n/g;
  for (let m = sep.exec(text); m; m = sep.exec(text)) {
    sentences.push([from, m.index]);
    from = m.index + m[0].length;
  }
  sentences.push([from, text.length]);
  for (const [a, b] of sentences) {
    const s = text.slice(a, b);
    if (s.trim() === '') continue;
    // An approval clause takes the rest of its sentence: "ask me before closing or refunding".
    let approvalAt = -1;
    let approvalText = '';
    for (const re of APPROVAL_PATTERNS) {
      const m = re.exec(s);
      if (m && (approvalAt < 0 || m.index < approvalAt)) {
        approvalAt = m.index;
        approvalText = `${m[1] ?? ''} ${m[2] ?? ''}`;
      }
    }
    // "delete it, but ask me first": the approval is of the action just before it.
    const first =
      approvalAt < 0
        ? /,?\s*(?:but |and )?(?:ask|check with) (?:me|us|a person|someone|my manager|a manager) first\b.*$/.exec(
            s,
          )
        : null;
    const plain = approvalAt >= 0 ? s.slice(0, approvalAt) : first ? s.slice(0, first.index) : s;
    const before = out.length;
    for (const part of splitSequence(plain))
      out.push({
        text: part.text,
        raw: raw.slice(a + part.at, a + part.at + part.text.length),
        approval: false,
      });
    if (first && out.length > before) out[out.length - 1]!.approval = true;
    if (approvalAt >= 0)
      for (const part of approvalText.split(/,|\bor\b|\band\b/)) {
        const t = part.trim();
        if (t !== '') out.push({ text: t, raw: t, approval: true });
      }
  }
  return out;
}

function splitSequence(s: string): { text: string; at: number }[] {
  const pieces: { text: string; at: number }[] = [];
  const re =
    /,\s*(?:and\s+)?(?:then\s+)?|\s+and then\s+|\s+then\s+|\s+and\s+|\s+after that,?\s+|\s+afterwards,?\s+|\bfirst,?\s+|\bfinally,?\s+|\bnext,?\s+|\s+before\s+|\s+after\s+|\s+once that is done,?\s+|:\s*|\s+-\s+|\s+plus\s+|\s+also\s+/g;
  let from = 0;
  const marks: string[] = [];
  for (let m = re.exec(s); m; m = re.exec(s)) {
    pieces.push({ text: s.slice(from, m.index), at: from });
    marks.push(m[0].trim());
    from = m.index + m[0].length;
  }
  pieces.push({ text: s.slice(from), at: from });
  // "refund them after replying": the part after `after` runs first.
  const ordered: { text: string; at: number }[] = [];
  for (let i = 0; i < pieces.length; i++) {
    if (marks[i] === 'after' && i + 1 < pieces.length) {
      ordered.push(pieces[i + 1]!, pieces[i]!);
      i++;
    } else ordered.push(pieces[i]!);
  }
  return ordered
    .filter((p) => /[a-z]/.test(p.text.replace(/"q[0-9]+"/g, '')) || /"q[0-9]+"/.test(p.text))
    .map((p) => ({ text: p.text.trim(), at: p.at + (p.text.length - p.text.trimStart().length) }));
}

interface ToolWords {
  readonly name: Set<string>;
  /** The lemmas of the verbs of the description's first sentence. */
  readonly first: Set<string>;
  readonly all: Set<string>;
}

const toolWordCache = new WeakMap<ToolDescriptor, ToolWords>();
function toolWords(t: ToolDescriptor): ToolWords {
  let w = toolWordCache.get(t);
  if (!w) {
    const first = /^(.*?[.!?])(\s|$)/.exec(t.description.trim())?.[1] ?? t.description;
    // The verbs of the description's first sentence: its first word, and a word after "and", "or",
    // "then", "which", "that" or a comma ("Moves a ticket to the archive, which closes it").
    const verbs = [
      ...first
        .toLowerCase()
        .matchAll(/(?:^|,\s*(?:(?:and|or|then|which|that)\s+)?|\b(?:and|or|then|which|that)\s+)([a-z]+)/g),
    ].map((m) => m[1]!);
    w = {
      name: wordsOf(t.name),
      first: wordsOf(verbs.join(' ')),
      all: wordsOf(`${t.name} ${t.description}`),
    };
    toolWordCache.set(t, w);
  }
  return w;
}

function matchesGroup(words: Set<string>, group: readonly string[]): boolean {
  return group.some((g) => words.has(g));
}

/** The one catalog tool an action clause names, or undefined (then a question says why). */
function mapTool(c: Clause, ctx: Ctx): ToolDescriptor | undefined {
  const tokens = c.text
    .replace(/"q[0-9]+"/g, ' ')
    .split(/[^a-z0-9'-]+/)
    .filter(Boolean);
  const content = tokens.filter((t) => !FILLER.has(t));
  const leftover = UNMAPPED_MARKERS.exec(c.text.replace(/"q[0-9]+"/g, ' '));
  if (leftover) {
    ctx.questions.push({
      about: 'request',
      question: `I could not turn "${c.raw.trim()}" into the spec: a draft has no way to say "${leftover[0]}" (a trigger condition, a limit or a tool's own arguments can). What should it do instead?`,
    });
    return undefined;
  }
  if (content.length === 0) return undefined;
  const verb = content[0]!;
  const verbLemmas = lemmas(verb);
  const verbGroup =
    verbLemmas.map((l) => groupOf(ACTION_GROUPS, l)).find((g) => g !== undefined) ??
    (GENERIC_VERBS.has(verb)
      ? undefined
      : [verbLemmas.find((l) => ctx.tools.some((t) => toolWords(t).name.has(l))) ?? verb]);
  const objects = content.slice(1).flatMap((w) => {
    const g = lemmas(w)
      .map((l) => groupOf(ACTION_GROUPS, l))
      .find((x) => x !== undefined);
    return [g ?? lemmas(w)];
  });
  const phrase = c.raw.trim().replace(/\s+/g, ' ');
  let candidates: ToolDescriptor[] = [];
  if (verbGroup)
    candidates = ctx.tools.filter(
      (t) => matchesGroup(toolWords(t).name, verbGroup) || matchesGroup(toolWords(t).first, verbGroup),
    );
  if (candidates.length === 0) {
    // A generic verb ("send a reply", "process the refund"): the object names the action.
    for (const o of objects) {
      candidates = ctx.tools.filter(
        (t) => matchesGroup(toolWords(t).name, o) || matchesGroup(toolWords(t).first, o),
      );
      if (candidates.length > 0) break;
    }
  }
  if (candidates.length > 1) {
    const narrowed = candidates.filter(
      (t) => objects.length > 0 && objects.every((o) => matchesGroup(toolWords(t).all, o)),
    );
    if (narrowed.length >= 1) candidates = narrowed;
  }
  if (candidates.length > 1) {
    // Several tools fit even their objects; one fits by name ("close" -> close_ticket, not archive_ticket) only if the
    // others mention the action just in passing. Never decided here: the person says.
    ctx.questions.push({
      about: `steps: "${phrase}"`,
      question: `Which tool should "${phrase}" use? ${listOr(candidates.map((t) => t.name))}?`,
      candidates: candidates.map((t) => t.name),
    });
    return undefined;
  }
  if (candidates.length === 0) {
    ctx.questions.push({
      about: `steps: "${phrase}"`,
      question: `No tool in the catalog does "${phrase}". Which tool should it use? The catalog has ${listOr(ctx.tools.map((t) => t.name))}.`,
      candidates: ctx.tools.map((t) => t.name),
    });
    return undefined;
  }
  return candidates[0];
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

interface ArgSchema {
  readonly type?: unknown;
  readonly enum?: unknown;
  readonly pattern?: unknown;
}

/** Arguments by the documented rules: literals said in the clause, else the trigger event's fields. */
function fillArgs(
  c: Clause,
  tool: ToolDescriptor,
  event: string | undefined,
  ctx: Ctx,
): Record<string, unknown> {
  const props = (tool.args.properties ?? {}) as Record<string, ArgSchema>;
  const required = new Set(Array.isArray(tool.args.required) ? (tool.args.required as string[]) : []);
  const names = Object.keys(props).sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  const args: Record<string, unknown> = {};
  const shape = ctx.events?.find((e) => e.type === event);
  const payload = shape?.payload ?? [];
  const quotedAll = [...c.text.matchAll(/"q([0-9]+)"/g)].map((m) => ({
    text: ctx.quotes[Number(m[1])]!,
    lead: /([a-z]+)\s*:?\s*$/.exec(c.text.slice(0, m.index))?.[1] ?? '',
  }));
  // A lead-in naming an argument gives the text to it; other quoted text fills the first text
  // argument the event does not supply.
  const LEADS: Record<string, readonly string[]> = {
    title: ['titled', 'title', 'called', 'named', 'subject'],
    reason: ['reason', 'because', 'saying'],
    message: ['saying', 'message', 'says', 'text', 'telling', 'know'],
    body: ['saying', 'says', 'text', 'message', 'reply'],
    summary: ['summary', 'saying', 'says'],
    note: ['note'],
  };
  const byLead = new Map<string, string>();
  const quoted: string[] = [];
  for (const q of quotedAll) {
    const arg = Object.keys(props).find((n) => (LEADS[n] ?? [n]).includes(q.lead) && !byLead.has(n));
    if (arg !== undefined) byLead.set(arg, q.text);
    else quoted.push(q.text);
  }
  const isId = (n: string) => n === 'id' || n.endsWith('_id');
  const isMoney = (n: string) => tool.cost?.fromArg === n || /amount/.test(n);
  let subjectUsed = false;
  // Literal text: quoted text, or "as X" / "with X" / "tag it X" for a text argument named after the action.
  const bare =
    /\b(?:as|with(?: the)?(?: tag| label)?|tag(?:ged)?(?: it| them| the [a-z]+)?|label(?:led)?(?: it| them| the [a-z]+)?)\s+([a-z0-9][a-z0-9-]*)\s*$/.exec(
      c.text.replace(/"q[0-9]+"/g, ' ').trimEnd(),
    );
  const literalFor = (n: string, s: ArgSchema): string | undefined => {
    if (s.type !== 'string' || isId(n) || Array.isArray(s.enum)) return undefined;
    if (byLead.has(n)) return byLead.get(n);
    if (quoted.length > 0 && !payload.includes(n)) return quoted.shift();
    if (
      bare &&
      !FILLER.has(bare[1]!) &&
      wordsOf(n).has(bare[1]!) === false &&
      (n === 'tag' || n === 'label' || n === 'status' || n === 'reason')
    )
      return bare[1]!;
    return undefined;
  };
  const dollars = /\$\s?([0-9]+(?:\.[0-9]{1,2})?)/.exec(c.text);
  for (const n of names) {
    const s = props[n] ?? {};
    const req = required.has(n);
    if (Array.isArray(s.enum)) {
      const hit = (s.enum as unknown[]).find(
        (v) =>
          typeof v === 'string' && new RegExp(`\\b${v.replace(/[^a-z0-9]/gi, '.')}\\b`, 'i').test(c.text),
      );
      if (hit !== undefined) {
        args[n] = hit;
        continue;
      }
    }
    const lit = literalFor(n, s);
    if (lit !== undefined) {
      args[n] = lit;
      continue;
    }
    if (isMoney(n) && dollars && (s.type === 'number' || s.type === 'integer')) {
      args[n] = Number(dollars[1]);
      continue;
    }
    if (payload.includes(n)) {
      args[n] = `{{event.payload.${n}}}`;
      continue;
    }
    // The event's subject is the first id argument only when the event carries no id fields of its
    // own: a post.flagged event with post_id and author_id does not say which one is a user_id.
    const payloadIds = payload.filter(isId);
    if (isId(n) && payloadIds.length > 0 && req) {
      ctx.questions.push({
        about: `args: ${tool.name}.${n}`,
        question: `Which of the ${event} event's fields is ${tool.name}'s ${n}: ${listOr(['its subject', ...payloadIds])}? None of them is called ${n}.`,
        candidates: ['subject', ...payloadIds],
      });
      continue;
    }
    if (isId(n) && !subjectUsed) {
      subjectUsed = true;
      args[n] = '{{event.subject}}';
      continue;
    }
    if (isMoney(n)) {
      const f = payload.filter((p) => /amount|total|value|price|cost|sum/.test(p));
      if (f.length === 1) {
        args[n] = `{{event.payload.${f[0]}}}`;
        continue;
      }
      if (f.length > 1 && req) {
        ctx.questions.push({
          about: `args: ${tool.name}.${n}`,
          question: `Which of the event's fields is ${tool.name}'s ${n}: ${listOr(f)}?`,
          candidates: f,
        });
        continue;
      }
    }
    if (!req) continue;
    if (shape === undefined && ctx.events === undefined && event !== undefined) {
      // No event catalog to check against: the documented rule reads the payload field of the same name.
      args[n] = `{{event.payload.${n}}}`;
      continue;
    }
    ctx.questions.push({
      about: `args: ${tool.name}.${n}`,
      question: `What should ${tool.name}'s ${n} be?${s.type === 'string' ? ' Put the text in quotes in the request.' : ''}${payload.length ? ` The ${event} event carries ${listOr(payload)}.` : ''}`,
    });
  }
  return args;
}

function checkApproval(step: StepSpec, tool: ToolDescriptor, ctx: Ctx): void {
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

function payloadField(
  event: string | undefined,
  re: RegExp,
  fallback: string,
  what: string,
  ctx: Ctx,
): string | undefined {
  if (!ctx.events) return fallback;
  const shape = ctx.events.find((e) => e.type === event);
  if (!shape) return undefined; // the trigger is a question already
  const f = shape.payload.filter((p) => re.test(p));
  if (f.length === 1) return f[0];
  ctx.questions.push({
    about: 'triggers.when',
    question:
      f.length === 0
        ? `Which field of the ${shape.type} event holds ${what}? It carries ${shape.payload.length ? listOr(shape.payload) : 'no known fields'}.`
        : `Which field of the ${shape.type} event holds ${what}: ${listOr(f)}?`,
    ...(f.length ? { candidates: f } : {}),
  });
  return undefined;
}

function audienceCondition(group: string, event: string | undefined, ctx: Ctx): string | undefined {
  if (!ctx.events) {
    ctx.questions.push({
      about: 'triggers.when',
      question: `Which event field says a customer is ${group}?`,
    });
    return undefined;
  }
  const shape = ctx.events.find((e) => e.type === event);
  if (!shape) return undefined;
  const flag = shape.payload.filter((p) => p === group || p === `is_${group}` || p === `${group}_customer`);
  if (flag.length === 1) return `payload.${flag[0]} == true`;
  const tier = shape.payload.filter((p) => /tier|plan|segment|level|class/.test(p));
  if (flag.length === 0 && tier.length === 1) return `payload.${tier[0]} == ${JSON.stringify(group)}`;
  ctx.questions.push({
    about: 'triggers.when',
    question: `Which field of the ${shape.type} event says a customer is ${group}? It carries ${shape.payload.length ? listOr(shape.payload) : 'no known fields'}.`,
    ...(tier.length + flag.length > 1 ? { candidates: [...flag, ...tier] } : {}),
  });
  return undefined;
}

function deriveId(event: string | undefined, steps: readonly string[]): string {
  const parts = [
    ...(event ? [event.replace(/[^a-z0-9]+/g, '-')] : []),
    ...steps.map((s) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-')),
  ];
  let id = parts.join('-').replace(/-+/g, '-').replace(/^-|-$/g, '').slice(0, 60).replace(/-$/, '');
  if (!isSpecId(id)) id = 'draft';
  return id;
}

/**
 * The event shapes sample events show (`{type, payload}` values, e.g. a project's events/*.json):
 * one shape per type, with every payload field any sample of it carries. Not an event is skipped.
 */
export function eventShapesOf(samples: readonly unknown[]): EventShape[] {
  const fields = new Map<string, Set<string>>();
  for (const s of samples) {
    if (typeof s !== 'object' || s === null || Array.isArray(s)) continue;
    const { type, payload } = s as { type?: unknown; payload?: unknown };
    if (typeof type !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(type)) continue;
    const set = fields.get(type) ?? new Set<string>();
    if (typeof payload === 'object' && payload !== null && !Array.isArray(payload))
      for (const k of Object.keys(payload)) if (/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(k)) set.add(k);
    fields.set(type, set);
  }
  return [...fields.entries()]
    .sort(([a], [b]) => cmp(a, b))
    .map(([type, f]) => ({ type, payload: [...f].sort() }));
}
