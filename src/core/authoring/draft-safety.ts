/**
 * The safety checks every draft passes before it may be published, whatever compiled it (the
 * offline grammar or a model): each broken one is a question, so the draft is not publishable.
 *
 * - A draft that moves money reads its bound back in words, and its spend cap never exceeds the
 *   smallest amount the request states (no stated amount, no cap above $0 but what the steps cost).
 * - No amount condition points opposite to the words: `amount > X` (or `>=`) where the request puts
 *   X after a negation or an upper bound ("never more than X", "no refunds above X", "under X").
 * - An amount in a currency the tools do not use is never a dollar bound.
 * - No more calls of a money-moving or destructive tool along any path than the request asks (one).
 * - A money-moving or destructive tool the request forbids ("don't refund anything yet", "no
 *   refunds", "never pay") is on no path of the draft (negated-actions.ts reads the bans).
 * - The amount a money-moving step moves is the one the words name: not a field they negate ("not
 *   just the amount on the ticket"), nor another while a named one is read nowhere (money-source.ts).
 * - No step runs only on a test the words say after it ("notify the warehouse. if the reason is
 *   damaged, also send a survey": later-tests.ts).
 * - Every assumption the compiler made is in the read-back, under "Assumed".
 *
 * Reads the request on its own (a small reader of amounts, independent of the grammar's) so that a
 * compiler's misreading is caught rather than repeated. Pure.
 */
import { usdToCents } from '../money.ts';
import { type FlowStep, isChooseStep, isToolStep, nestedLists, type StepSpec } from '../spec/flow-steps.ts';
import type { Condition } from '../spec/parse-condition.ts';
import { parseStepCondition } from '../spec/step-condition.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import type { ToolDescriptor } from '../tools/tool-descriptor.ts';
import type { DraftCatalog, DraftQuestion } from './compiled-request.ts';
import { dollars } from './condition-words.ts';
import { draftTestQuestions } from './draft-test-questions.ts';
import { NO_OP_ELSE } from './grammar/read-filler.ts';
import { NOT_A_CENT } from './grammar/read-money-phrases.ts';
import {
  FOREIGN_AMOUNT,
  foreignAmountQuestion,
  NUMBER_WORDS,
  numberWordsValue,
} from './grammar/read-spelling.ts';
import { toolWords } from './grammar/tool-words.ts';
import { laterTests } from './later-tests.ts';
import { moneySourceQuestions } from './money-source.ts';
import { type NegatedAction, negatedActions } from './negated-actions.ts';
import { ACTION_GROUPS, groupOf } from './request-words.ts';

const HALF_A_GRAND = /\bhalf (?:a|of a|of one|one) (?:grand|thousand)\b/g;

/** A dollar amount the request states, and the words just before it. */
export interface StatedAmount {
  readonly usd: number;
  readonly before: string;
  /** Said as a lower bound ("over $5,000", "at least $10"), with no negation before it. */
  readonly lower: boolean;
}

const BOUND = `(?:under|below|less than|up to|at most|no more than|not more than|not above|not over|more than|more then|over|above|max(?:imum)?(?: of)?|capped at|cap(?: it)?(?: at)?|limit(?: it)?(?: to| at| of)?|limit is|budget(?: of)?|within|exceeding|<=?|≤)`;
const UPPER_OR_NEGATED =
  /\b(?:never|don'?t|do not|not|no|nothing|unless|under|below|less|up to|at most|max(?:imum)?|cap(?:ped)?|limit|within|budget)\b|[<≤]/;

/** The dollar amounts a request states: "$12.50", "$2k", "USD 40", "40$", "60 dollars", "twenty-five bucks", "above 75". */
export function statedAmounts(request: string): StatedAmount[] {
  const t = request
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    // "half a grand" is $500, never "a grand"; "not a cent more" states no amount.
    .replace(HALF_A_GRAND, '$$500')
    .replace(NOT_A_CENT, 'not any');
  const out: StatedAmount[] = [];
  const num = (s: string) => {
    const x = s.replace(/,/g, '');
    return x.endsWith('k') ? Number(x.slice(0, -1)) * 1000 : Number(x);
  };
  const N = String.raw`[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]{1,2})?k?|[0-9]+(?:\.[0-9]{1,2})?k?`;
  const re = new RegExp(
    String.raw`(?:\$|\busd)\s?(${N})|\b(${N})\s?(?:(?:dollars?|bucks?|usd)\b|\$)|(${BOUND})\s*\$?(${N})\b(?!\s*(?:(?:business|working|calendar|full|more|extra)\s+)?(?:steps?|%|percent|days?|hours?|hrs?|minutes?|mins?|weeks?|months?|years?|times|items?|cents?|grand)\b|¢|(?:\.[0-9]+)?\s*grand\b)|\b(${NUMBER_WORDS})\s*(?:dollars?|bucks?|usd)\b|\b${BOUND}\s+(${NUMBER_WORDS})\b(?!\s+(?:cents?|grand)\b)|\b(${N}|${NUMBER_WORDS})\s+(?:max(?:imum)?|tops)\b|\b(?:([0-9]{1,9})(?:\s*(?:cents?\b|¢)|c\b)|(${NUMBER_WORDS})\s+cents?\b)|\b(a|one|[0-9]+(?:\.[0-9]{1,3})?|${NUMBER_WORDS})\s+grand\b(?!\s+total\b)`,
    'g',
  );
  for (const m of t.matchAll(re)) {
    // Whole cents ("10 cents", "5c", "ten cents"): read as cents, never as dollars.
    const centsWords = m[9]?.trim();
    const cents =
      m[8] !== undefined
        ? Number(m[8])
        : centsWords === undefined
          ? undefined
          : /^(?:a|one)$/.test(centsWords)
            ? 1
            : numberWordsValue(centsWords);
    // "a grand", "two grand", "1.5 grand": thousands, in integer cents.
    const g = m[10]?.trim();
    const grand =
      g === undefined
        ? undefined
        : /^(?:a|one)$/.test(g)
          ? 1000
          : /^[0-9]/.test(g)
            ? Math.round(Number(g) * 1000 * 100) / 100
            : (numberWordsValue(g) ?? 0) * 1000;
    const usd =
      m[8] !== undefined || m[9] !== undefined
        ? cents === undefined
          ? undefined
          : cents / 100
        : m[10] !== undefined
          ? grand
          : m[1]
            ? num(m[1])
            : m[2]
              ? num(m[2])
              : m[4]
                ? num(m[4])
                : m[7] && /^[0-9]/.test(m[7])
                  ? num(m[7])
                  : numberWordsValue((m[5] ?? m[6] ?? m[7] ?? '').trim());
    if (usd === undefined || !Number.isFinite(usd) || usd <= 0) continue;
    const w = (m[6] ?? m[7] ?? '').trim();
    // "a" / "one" after a bound is no amount, unless a dollar follows ("up to one dollar").
    const dollar = /^\s*(?:dollars?|bucks?|usd)\b/.test(t.slice(m.index + m[0].length));
    if (/^(?:a|one|a couple(?: of)?|a few)$/.test(w) && !(dollar && /^(?:a|one)$/.test(w))) continue;
    const before = t.slice(Math.max(0, m.index - 40), m.index + m[0].length);
    const lead = t
      .slice(Math.max(0, m.index - 24), m.index + m[0].length)
      .replace(/\s*(?:cents?|¢|c|grand)$/, '')
      .replace(/[0-9$,.k]+$/, '');
    const lower =
      /(?:over|above|more than|greater than|bigger than|larger than|at least|exceeding|(?<![-=<])>=?|≥)\s*\$?\s*$/.test(
        lead,
      ) && !/\b(?:never|don'?t|do not|not|no|nothing|unless)\b/.test(before);
    out.push({ usd, before, lower });
  }
  return out;
}

/** An amount said in a currency other than dollars: "£30", "forty quid", "400 euros". */
export function foreignAmount(request: string): string | undefined {
  return new RegExp(FOREIGN_AMOUNT).exec(request.toLowerCase())?.[0];
}

/**
 * The most calls of `tool` (or of the steps `tool` matches) a run can make: along a path, branches
 * of a choice being exclusive.
 */
function callsOf(steps: readonly FlowStep[], tool: string | ((s: StepSpec) => boolean)): number {
  const match = typeof tool === 'string' ? (s: StepSpec) => s.tool === tool : tool;
  let n = 0;
  for (const s of steps) {
    if (isToolStep(s)) n += match(s) ? 1 : 0;
    else if (isChooseStep(s)) n += Math.max(0, ...nestedLists(s).map((l) => callsOf(l.steps, match)));
    else n += nestedLists(s).reduce((k, l) => k + callsOf(l.steps, match), 0);
  }
  return n;
}

/**
 * Every amount comparison in the spec's conditions: [operator, amount, source]; for a choice's
 * branch, the steps it guards too (`guards`), so a test whose branch moves no money is told apart.
 */
function amountTests(
  spec: WorkflowSpec,
): { op: string; usd: number; src: string; guards?: readonly FlowStep[] }[] {
  const srcs: { src: string; guards?: readonly FlowStep[] }[] = [];
  for (const t of spec.triggers) if (t.when) srcs.push({ src: t.when });
  const walk = (list: readonly FlowStep[]) => {
    for (const s of list) {
      if (isToolStep(s) && s.if) srcs.push({ src: s.if });
      if (isChooseStep(s)) for (const b of s.choose) srcs.push({ src: b.when, guards: b.steps });
      for (const l of nestedLists(s)) walk(l.steps);
    }
  };
  walk(spec.steps);
  const out: { op: string; usd: number; src: string; guards?: readonly FlowStep[] }[] = [];
  let guards: readonly FlowStep[] | undefined;
  const visit = (c: Condition, src: string, negated: boolean) => {
    if (c.kind === 'and' || c.kind === 'or') for (const i of c.items) visit(i, src, negated);
    else if (c.kind === 'not') visit(c.item, src, !negated);
    else if (c.kind === 'compare' && c.right.kind === 'literal' && typeof c.right.value === 'number') {
      const flip: Record<string, string> = {
        '>': '<=',
        '>=': '<',
        '<': '>=',
        '<=': '>',
        '==': '!=',
        '!=': '==',
      };
      out.push({
        op: negated ? (flip[c.op] ?? c.op) : c.op,
        usd: c.right.value,
        src,
        ...(guards ? { guards } : {}),
      });
    }
  };
  for (const { src, guards: g } of srcs) {
    guards = g;
    try {
      visit(parseStepCondition(src), src, false);
    } catch {
      // An unparsable condition is validation's to report.
    }
  }
  return out;
}

/**
 * The safety questions of a draft: empty when every check holds. `readBackText` is the read-back
 * shown for confirmation; `assumptions` what the compiler assumed.
 */
/** An amount worked out from another: "$5 less than asked", "minus $5", "plus 10", "80% of", "half of", "double". */
const RECKONED =
  /(?:\$?[0-9][0-9,.]*\s*(?:dollars|bucks|usd)?\s+(?:less|more|fewer|lower|higher)\s+than\s+(?:what\s+|the\s+)?(?:they\s+|he\s+|she\s+|the customer\s+)?(?:asked|requested|claimed|wanted|due|owed|amount|paid|charged)|\b(?:minus|plus|less)\s+\$?[0-9]|\b[0-9]+\s*%\s*(?:of|off)\b|\b(?:half|a third|a quarter|double|twice)\s+(?:of\s+)?(?:what|the amount|the refund|it)\b)/i;

export function draftSafety(
  spec: WorkflowSpec,
  request: string,
  catalog: DraftCatalog,
  readBackText: string,
  assumptions: readonly string[],
): DraftQuestion[] {
  const qs: DraftQuestion[] = [];
  const ask = (question: string) => qs.push({ about: 'safety', question });
  const byName = new Map(catalog.tools.map((t) => [t.name, t]));
  const used = [...new Set(allToolNames(spec.steps))];
  const money = used.filter((n) => byName.get(n)?.cost?.fromArg !== undefined);
  const stated = statedAmounts(request);
  const cap = spec.limits.maxCostUsd;
  if (money.length > 0) {
    const bounds = stated.filter((s) => !s.lower);
    const smallest = bounds.length ? Math.min(...bounds.map((s) => s.usd)) : undefined;
    if (smallest === undefined && cap > 0 && stated.length === 0)
      ask(
        `The draft may spend up to ${dollars(usdToCents(cap))} a run, but the request states no amount. How much may one run spend?`,
      );
    if (smallest !== undefined && cap > smallest)
      ask(
        `The draft's spend cap, ${dollars(usdToCents(cap))}, is above ${dollars(usdToCents(smallest))}, the smallest amount the request states. Which bound is meant?`,
      );
    if (!readBackText.includes(cap === 0 ? 'spend cap $0' : `Spends at most ${dollars(usdToCents(cap))}`))
      ask('The read-back does not say the spend cap in words. What should a run spend at most?');
    // A run for another currency's events, paying with a tool that counts dollars.
    for (const t of spec.triggers) {
      const cur = /\bpayload\.[a-z_]*currenc[a-z_]*\s*(==|!=)\s*"([A-Za-z]+)"/.exec(t.when ?? '');
      // ...unless the request says its bound in dollars ("in EUR, up to $60"); "not in X" is always other currencies.
      const other = cur && (cur[1] === '!=' || cur[2]!.toUpperCase() !== 'USD');
      if (other && (cur[1] === '!=' || !/\$|\b(?:dollars|usd|bucks)\b/i.test(request)))
        ask(
          `The draft moves money for events in ${cur[1] === '!=' ? `currencies other than ${cur[2]}` : cur[2]}, and the tools and the spend cap count US dollars. What is the bound in dollars, or should those events be left alone?`,
        );
    }
    const foreign = foreignAmount(request);
    if (foreign !== undefined) ask(foreignAmountQuestion(foreign));
    // "refund $5 less than asked", "the amount minus $5", "80% of it": no step computes an amount.
    const reckoned = RECKONED.exec(request);
    if (reckoned)
      ask(
        `The request says "${reckoned[0].trim()}", an amount worked out from another, but no step can work one out: the draft moves an amount as it stands. Which amount should it move?`,
      );
  }
  // The amount moved is the one the words name, never one they negate or another field.
  for (const q of moneySourceQuestions(spec, request, catalog)) ask(q);
  for (const t of amountTests(spec)) {
    if (t.op !== '>' && t.op !== '>=') continue;
    // "refund it unless it's more than $150, in that case tag it": the branch above the bound moves
    // no money, so money moves only at or below it, as the words say.
    if (t.guards && money.length > 0 && money.every((n) => callsOf(t.guards!, n) === 0)) continue;
    const words = stated.filter((s) => s.usd === t.usd);
    if (words.length > 0 && words.every((s) => !s.lower && UPPER_OR_NEGATED.test(s.before)))
      ask(
        `The condition ${JSON.stringify(t.src)} runs the workflow above ${dollars(usdToCents(t.usd))}, but the request says ${JSON.stringify(words[0]!.before.trim())}: an upper bound. Which is meant?`,
      );
  }
  // ("pay it out under $800 and give the seller a fee credit of the amount": one cap bounds what a
  // run spends in all, so a payout of $500 is made and its credit refused, ending the run.)
  const movesMoney = (s: StepSpec) => byName.get(s.tool)?.cost?.fromArg !== undefined;
  const readsAmount = (s: StepSpec) =>
    movesMoney(s) && typeof s.args[byName.get(s.tool)!.cost!.fromArg!] === 'string';
  if (callsOf(spec.steps, movesMoney) > 1 && callsOf(spec.steps, readsAmount) > 0)
    ask(
      `More than one step of a run moves money (${money.join(', ')}), and the spend cap, ${dollars(usdToCents(cap))}, bounds what they move together, not each: a run whose first payment leaves too little is refused at the next, and ends there. What should a run spend at most in all?`,
    );
  for (const n of used) {
    const tool = byName.get(n);
    if (!tool || !(tool.destructive || tool.cost?.fromArg !== undefined)) continue;
    const calls = callsOf(spec.steps, n);
    if (calls > 1)
      ask(
        `The draft calls ${n} ${calls} times in one run, and ${n} ${tool.cost?.fromArg ? 'moves money' : 'is destructive'}. The request asks for it once: should it be one step?`,
      );
  }
  const bans = negatedActions(request);
  const bansTool = (b: NegatedAction, tool: ToolDescriptor) => {
    const { name, first } = toolWords(tool);
    return b.lemmas.some((l) => (groupOf(ACTION_GROUPS, l) ?? [l]).some((w) => name.has(w) || first.has(w)));
  };
  // (A read too, when told not to in so many words: "schedule payment without matching" drafted
  // with a match step, added because the payment reads what a match returns, does what the words
  // forbid; "if it doesn't match" is a test, no ban.)
  // ("never pay without matching the PO" asks for the match.)
  const lower = request.toLowerCase().replace(/[\u2018\u2019]/g, "'");
  const outright = (b: NegatedAction) =>
    /^(?:don'?t|do not|never|without|no need to|skip)\b/.test(b.words) &&
    !(
      b.words.startsWith('without') &&
      /\b(?:never|don'?t|do not|not)\s+[a-z]+[^.;,:!?]*$/.test(
        lower
          .slice(0, Math.max(0, lower.indexOf(b.words)))
          .split(' - ')
          .pop()!,
      )
    );
  for (const n of used) {
    const tool = byName.get(n);
    if (!tool) continue;
    const watched = tool.destructive || tool.cost?.fromArg !== undefined;
    const ban = bans.find((b) => bansTool(b, tool) && (watched || (tool.effect === 'read' && outright(b))));
    if (ban)
      ask(
        `The request says "${ban.words}", and the draft calls ${n}${tool.cost?.fromArg ? ', which moves money' : tool.destructive ? ', which is destructive' : ''}. Should it be left out?`,
      );
  }
  // "approve it unless it's alcohol, then pay them back": is "then" the case the test names, or the
  // next step either way? Only "in that case" / "instead" says; a draft may not pick one.
  const unlessThen = /\bunless\b[^.;!?]*?,\s*then\b(?![^.;!?]*\binstead\b)[^.;!?]*/i.exec(request);
  if (unlessThen)
    ask(
      `The request says "${unlessThen[0].trim()}": is what follows "then" what should happen when the "unless" test holds (say "in that case ... instead"), or the next step either way (say it as its own sentence)?`,
    );
  // "Otherwise grant it", "anything else -> ping the manager": an alternative the words give needs a
  // branch; a draft without one runs every step on the same events (the else would be dropped).
  const alternative = elseSaid(request, spec);
  if (alternative !== undefined && !hasChoice(spec.steps))
    ask(
      `The request says "${alternative}", but the draft has no branch for it: every step runs on the same events. What should happen otherwise, and for which events?`,
    );
  // What the draft's tests say against its events and the request's words (draft-test-questions.ts).
  // (An action left out, "reply but not refund", is a ban, checked above.)
  const banned = (words: string) =>
    bans.some((b) => words.includes(b.words) && catalog.tools.some((t) => bansTool(b, t)));
  for (const q of draftTestQuestions(spec, request, catalog, banned)) ask(q);
  // "notify the warehouse. if the reason is damaged, also send a survey": the warehouse hears of every return.
  for (const l of laterTests(spec, request, catalog))
    ask(
      `The request says "${l.said}" after ${l.steps.join(', ')}, but the draft runs ${l.steps.length > 1 ? 'them' : 'it'} only then. Which steps is "${l.said}" for?`,
    );
  // "assign it to desktop. Ask me first.": no step of the draft waits for a person.
  const approvalSaid =
    /\b(?:ask|check with|run it by)\s+(?:me|us|a person|someone|somebody|my manager|a manager)\s+(?:first|beforehand|before)\b/i.exec(
      request,
    );
  const waits = used.some((n) => byName.get(n)?.destructive || byName.get(n)?.approval === 'always');
  if (approvalSaid && !waits)
    ask(
      `The request says "${approvalSaid[0]}", but no step of the draft waits for a person: none of its tools is destructive or an approval gate. A tenant policy rule can make its calls wait (outcome: require_approval). Keep the draft without approval, or leave the step out?`,
    );
  for (const a of assumptions)
    if (!readBackText.includes(a)) ask(`The read-back does not list an assumption: ${a} Is it right?`);
  return qs;
}

/**
 * Words that give an alternative ("otherwise", "anything else", "if not", "anything over that",
 * "anything bigger"), beside "otherwise nothing"; "anyone under $50" and "nothing over that" are a
 * bound, not one.
 */
const ELSE_SAID =
  /(?<!\b(?:ignore|skip|exclude|leave out|touch)\b[^.;!?]*[.;!?]\s*(?:for\s+)?)\b(?:otherwise(?!,? (?:do )?nothing| ignore| leave (?:it|them)(?: alone)?)|(?:anything|everything|everyone|everybody|anyone|all the) else|(?:anything|everything|anyone|the) (?:bigger|larger|smaller|higher|lower|longer|shorter)\b(?! than \$?[0-9])|(?<=(?:^|[.;,:])\s*)(?:bigger|larger|smaller|higher|lower|longer|shorter) ones\b|(?<!\b(?:nothing|never|not|no|none|nobody)\s)(?:over|above|under|below|more than|less than) (?:that|this)\b|if not\b|for the rest|the rest (?:get|go|->|:))/i;

/**
 * The alternative the request's words give, outside the texts the draft sends (a reply that says
 * "otherwise" is no branch): the words, or undefined.
 */
function elseSaid(request: string, spec: WorkflowSpec): string | undefined {
  // ", otherwise do nothing": an else with no step needs no branch.
  let words = request.replace(/"[^"]*"/g, ' ').replace(new RegExp(NO_OP_ELSE.source, 'gi'), ' ');
  const texts = (steps: readonly FlowStep[]): string[] =>
    steps.flatMap((s) =>
      isToolStep(s)
        ? Object.values(s.args).filter((v): v is string => typeof v === 'string' && v.length > 3)
        : nestedLists(s).flatMap((l) => texts(l.steps)),
    );
  for (const t of texts(spec.steps)) {
    const bare = t.replace(/[.!?]$/, '').toLowerCase();
    const at = words.toLowerCase().indexOf(bare);
    if (at >= 0) words = `${words.slice(0, at)} ${words.slice(at + bare.length)}`;
  }
  return ELSE_SAID.exec(words)?.[0];
}

/** Whether any step of the draft, at any depth, is a choice. */
function hasChoice(steps: readonly FlowStep[]): boolean {
  return steps.some((s) => isChooseStep(s) || nestedLists(s).some((l) => hasChoice(l.steps)));
}

function allToolNames(steps: readonly FlowStep[]): string[] {
  return steps.flatMap((s) =>
    isToolStep(s) ? [s.tool] : nestedLists(s).flatMap((l) => allToolNames(l.steps)),
  );
}
