/**
 * Tool mapping: the one catalog tool an action clause names. The clause's verb (its first word that
 * is not filler), with its synonyms (request-words.ts), is matched against each tool's name and the
 * verbs of its description's first sentence; a generic verb ("send a reply") lets the object
 * decide; several fits are narrowed by the objects. Several left, or none, is a question naming
 * the candidates: a draft never names a tool that is not in the catalog and never guesses.
 *
 * Better matching (more synonyms, descriptions read further) goes here; a clause whose words the
 * grammar cannot express (`UNMAPPED_MARKERS`: "unless", weekdays, "half") is asked about instead.
 */
import type { ToolDescriptor } from '../../tools/tool-descriptor.ts';
import {
  ACTION_GROUPS,
  EVENT_VERB_GROUPS,
  FILLER,
  GENERIC_VERBS,
  groupOf,
  lemmas,
  opposite,
} from '../request-words.ts';
import { byPermanence, TAKE_DOWN, TAKE_DOWN_GROUPS } from './permanence.ts';
import type { Clause } from './read-clauses.ts';
import {
  isMessagingVerb,
  messagingTool,
  namedForTexting,
  otherRecipient,
  smsTool,
  takesChannel,
} from './read-message-text.ts';
import { routedTool } from './read-routes.ts';
import { approverAsked, signoffTool } from './read-signoff.ts';
import { listOr, type RequestContext, showQuotes } from './request-context.ts';
import { toolWords } from './tool-words.ts';

const UNMAPPED_MARKERS =
  /\b(if|unless|except|weekdays?|weekends?|business hours|monday|tuesday|wednesday|thursday|friday|saturday|sunday|o'clock|[0-9]+ ?(?:am|pm)|percent|between|twice|half|halves|double|triple|quarter|partial|partially|part of|portion|retry|retries|every day|daily|hourly|weekly|minutes?|hours?|days?|weeks?|months?|later|again|once more|second time|instead|only)\b|%/;

/**
 * Whether a tool is named for `marker` ("retry" with retry_payment), or, for a percentage, takes a
 * `percent` argument. Durations stay markers: which step a time is for is read elsewhere, or asked.
 */
function catalogNames(marker: string, ctx: RequestContext): boolean {
  const percent = marker === '%' || marker === 'percent';
  return ctx.tools.some((t) =>
    percent
      ? Object.keys((t.args.properties ?? {}) as object).some((n) => /(?:^|_)(?:percent|pct)(?:_|$)/.test(n))
      : t.name.split('_').some((w) => lemmas(w).includes(marker) || lemmas(marker).includes(w)),
  );
}

/**
 * The clause without an "only" that says no more than the spec does: said after the action alone
 * ("approve only", "close it only"), where nothing else is left for it to scope. Every other
 * "only" stays, and so is asked about: before a verb ("only pay out verified sellers") or after an
 * object ("charge minibar only", "pay the PO amount only") it scopes words the draft may not read,
 * and the question was their one guard.
 */
function withoutRestatedOnly(text: string, ctx: RequestContext): string {
  const verb = VERB_ONLY.exec(text)?.[1];
  if (verb === undefined) return text;
  const acts =
    GENERIC_VERBS.has(verb) ||
    lemmas(verb).some(
      (l) => groupOf(ACTION_GROUPS, l) !== undefined || ctx.tools.some((t) => t.name.split('_')[0] === l),
    );
  return acts ? text.replace(/\bonly\b/, '    ') : text;
}

/** "approve only", "close it only", "and then approve them only": a verb, its pronoun, "only". */
const VERB_ONLY =
  /^\s*(?:(?:and|then|but|just|so)\s+)*([a-z]+)(?:\s+(?:it|them|em|this|that|these|those))?\s+only\s*[.,;!)]*\s*$/;

/** Whether a verb names an action some tool of the catalog does by its own words (not a generic verb). */
function namesATool(verb: string, ctx: RequestContext): boolean {
  if (GENERIC_VERBS.has(verb)) return false;
  const group = lemmas(verb)
    .map((l) => groupOf(ACTION_GROUPS, l))
    .find((g) => g !== undefined) ?? [verb];
  return ctx.tools.some(
    (t) => matchesGroup(toolWords(t).name, group) || matchesGroup(toolWords(t).first, group),
  );
}

function matchesGroup(words: Set<string>, group: readonly string[]): boolean {
  return group.some((g) => words.has(g));
}

/** Whether `o` names only the verb `t` is named with (the first word of request_manager_signoff). */
function namedByVerbOnly(t: ToolDescriptor, o: readonly string[]): boolean {
  const [verb, ...rest] = t.name.toLowerCase().split(/[^a-z0-9]+/);
  return verb !== undefined && matchesGroup(new Set([verb]), o) && !matchesGroup(new Set(rest), o);
}

/** Verbs that hand something over: what they name is never a tool that only reads. */
const GIVING_VERBS = new Set(['send', 'give', 'offer', 'hand', 'grant', 'issue', 'award', 'mail']);

/** Whom something is given to: "the seller", "each seller", "them". */
const WHOM = String.raw`(?:(?:the|their|our|each|every|all|this|that|these|those)\s+)?`;

/** "send the seller a check", "send them their balance": a verb, whom to, then what (after its determiner). */
const GIVEN_SOMEONE = new RegExp(
  String.raw`^\s*[a-z]+\s+${WHOM}(?!(?:it|this|that)\b)[a-z'-]+\s+(?:a|an|some|one|another|their|the|his|her|its|our|your)\s+[a-z]`,
);

/**
 * "give the account a credit", "send each seller a payout failure email": a verb, whom to, and
 * what (after its article): the head noun of what is given, its last word before "of", "saying",
 * a quote or the clause's end.
 */
const GIVEN_TO = new RegExp(
  String.raw`^\s*(?:give|send|offer|hand|grant|issue|award)\s+${WHOM}[a-z'-]+\s+(?:a|an|some|one|another)\s+(?:[$a-z0-9.,'-]+\s+)*?([a-z'-]+)(?=\s+(?:of|for|to|saying|that|which|with|when|whenever|if|about|on|in|as)\b|\s*[,.;:!?"]|\s*$)`,
);

/** The one catalog tool an action clause names, or undefined (then a question says why). */
export function mapTool(c: Clause, ctx: RequestContext): ToolDescriptor | undefined {
  const tokens = c.text
    .replace(/"q[0-9]+"/g, ' ')
    .split(/[^a-z0-9'-]+/)
    .filter(Boolean);
  const content = tokens.filter((t) => !FILLER.has(t));
  // A marker a tool of the catalog is named for ("retry the card" with retry_payment), or a
  // percentage a tool takes ("20% off" with a `percent` argument), is the tool's to read.
  const leftover = [
    ...withoutRestatedOnly(c.text.replace(/"q[0-9]+"/g, ' '), ctx).matchAll(
      new RegExp(UNMAPPED_MARKERS, 'g'),
    ),
  ].find((m) => !catalogNames(m[0], ctx));
  if (leftover) {
    ctx.questions.push({
      about: 'request',
      question: `I could not turn "${c.raw.trim()}" into the spec: I read no step, condition or limit in its "${leftover[0]}". What should it do?${/^(?:if|unless|except|only|instead)$/.test(leftover[0]) ? ' A test said in full drafts, e.g. "if the amount is over $100, tag it review".' : ''}`,
    });
    return undefined;
  }
  // "get the manager's ok": the catalog's tool that asks the manager (read-signoff.ts).
  const signoff = signoffTool(c, ctx);
  if (signoff) return signoff;
  // "tier 2", "drop it in the tier-1 queue": a route one tool takes, with no action of its own.
  const route = routedTool(c, ctx);
  if (route && (content.length === 0 || !namesATool(content[0]!, ctx))) return route;
  if (content.length === 0) return undefined;
  const verb = content[0]!;
  const verbLemmas = lemmas(verb);
  const verbGroup =
    (verb === TAKE_DOWN ? TAKE_DOWN_GROUPS.flatMap((w) => groupOf(ACTION_GROUPS, w) ?? []) : undefined) ??
    verbLemmas.map((l) => groupOf(ACTION_GROUPS, l)).find((g) => g !== undefined) ??
    (GENERIC_VERBS.has(verb)
      ? undefined
      : [verbLemmas.find((l) => ctx.tools.some((t) => toolWords(t).name.has(l))) ?? verb]);
  const said = content.slice(1).flatMap((w) => {
    const g = lemmas(w)
      .map((l) => groupOf(ACTION_GROUPS, l))
      .find((x) => x !== undefined);
    return [g ?? lemmas(w)];
  });
  // "give the account a $20 credit", "send the seller a payout failure email": what is given, by
  // its head noun, names the action before whom it is given to and the words before the head.
  // (A cheque, "send the employee a check", is money, never a read named "check": the words stay
  // in their order.)
  const given = GIVEN_TO.exec(c.text)?.[1];
  const head =
    given !== undefined && given !== 'cheque' && !groupOf(ACTION_GROUPS, given)?.includes('read')
      ? given
      : undefined;
  const at = head === undefined ? -1 : content.indexOf(head, 2) - 1;
  const objects = at > 0 ? [said[at]!, ...said.filter((_, i) => i !== at)] : said;
  const phrase = c.raw.trim().replace(/\s+/g, ' ');
  let candidates: ToolDescriptor[] = [];
  if (verbGroup) {
    candidates = ctx.tools.filter(
      (t) => matchesGroup(toolWords(t).name, verbGroup) || matchesGroup(toolWords(t).first, verbGroup),
    );
    // A tool named by the verb itself ("approve it": approve_leave) before one named only by a noun
    // made from it (request_supervisor_approval); tools that do it by their description stay.
    const named = (t: ToolDescriptor) => t.name.toLowerCase().split(/[^a-z0-9]+/);
    const byNounOnly = (t: ToolDescriptor) =>
      !matchesGroup(toolWords(t).first, verbGroup) && !named(t).some((w) => verbGroup.includes(w));
    if (candidates.some((t) => named(t).some((w) => verbGroup.includes(w))))
      candidates = candidates.filter((t) => !byNounOnly(t));
  }
  // A verb that names an action of its own ("email people the link to their export") is that
  // action: no tool doing it is a question, never the tool another action in its object names
  // (a thing it names stays: "pay back rebates" -> pay_rebate).
  const ownAction = verbLemmas.some((l) => groupOf(ACTION_GROUPS, l) !== undefined);
  const isAction = (o: readonly string[]) => ACTION_GROUPS.includes(o as string[]);
  // ("reject expenses": approve_expense is named for the object but does the opposite; "reject the
  // payout": hold_payout is no rejection either, beside send_payout.)
  const doesOpposite = (t: ToolDescriptor) =>
    verbGroup !== undefined &&
    [...toolWords(t).name, ...toolWords(t).first].some((w) => {
      const g = groupOf(ACTION_GROUPS, w);
      return g !== undefined && opposite(g[0]!, verbGroup[0]!);
    });
  if (candidates.length === 0) {
    // A generic verb ("send a reply", "process the refund"): the object names the action.
    for (const o of objects) {
      if (ownAction && isAction(o)) continue;
      candidates = ctx.tools.filter(
        (t) =>
          (matchesGroup(toolWords(t).name, o) || matchesGroup(toolWords(t).first, o)) &&
          // ("deny any admin request": request_manager_signoff requests; what it does is no object.)
          !(ownAction && namedByVerbOnly(t, o)),
      );
      // (Where one of them does the opposite, none is a guess worth making: asked.)
      if (ownAction && candidates.some(doesOpposite)) candidates = [];
      if (candidates.length > 0) break;
    }
  }
  // "ping #duty-managers: ...": words sent to a channel go by the one tool that takes any channel.
  // (Before a tool that messages a person: "ping" is the guest's message_guest too.)
  // (A channel's name is kept aside as a quotation: `#"q1"`.)
  const hash = /(?<![a-z0-9_])#(?:"q([0-9]+)"|([a-z0-9][a-z0-9_-]*))/.exec(c.text);
  const channel = hash ? (hash[2] ?? ctx.quotes[Number(hash[1])]?.toLowerCase()) : undefined;
  if (channel !== undefined && isMessagingVerb(verb)) {
    const posting = ctx.tools.filter((t) => takesChannel(t, channel));
    if (posting.length === 1 && !candidates.some((t) => takesChannel(t, channel))) {
      candidates = posting;
      ctx.assumptions.push(
        `"${phrase}" is read as ${posting[0]!.name}: the catalog's one tool that posts to a channel.`,
      );
    }
  }
  // "text them", "sms the guest": the one tool that sends by SMS (read-message-text.ts), or none.
  const sms = smsTool(verb, ctx, content[1]);
  if ((verb === 'text' || verb === 'sms') && !namedForTexting(ctx)) candidates = sms ? [sms] : [];
  if (sms) {
    ctx.assumptions.push(
      `"${phrase}" is read as ${sms.name} by sms: the catalog's one tool that sends by SMS.`,
    );
  }
  // "DM them", "email them", "ack it": the catalog's one messaging tool, when no tool names the verb
  // ("send them: <text>" too: a text to send is a message).
  if (candidates.length === 0) {
    const messaging = messagingTool(verb === 'send' && /"q[0-9]+"/.test(c.text) ? 'message' : verb, ctx);
    if (messaging) {
      candidates = [messaging];
      ctx.assumptions.push(
        `"${phrase}" is read as ${messaging.name}: the catalog's one tool that sends a message.`,
      );
    }
  }
  let markedStatus = false;
  if (verb === 'mark') {
    // "mark it urgent", "mark it as 'billing'": a tag. "mark it as resolved / refunded" may mean the
    // action or a tag saying so: both are candidates, so the person says which.
    const tags = ctx.tools.filter((t) => matchesGroup(toolWords(t).name, groupOf(ACTION_GROUPS, 'tag')!));
    const status = content.slice(1).some((w) => groupOf(EVENT_VERB_GROUPS, w) !== undefined || /ed$/.test(w));
    if (candidates.length === 0 || status) candidates = [...new Set([...candidates, ...tags])];
    markedStatus = status;
  }
  // "taken down permanently", "take it down pending review": the one the words of time pick.
  const timed =
    candidates.length > 1 ? byPermanence(candidates, c.text.replace(/"q[0-9]+"/g, ' ')) : undefined;
  if (timed) {
    ctx.assumptions.push(
      `"${phrase}" is read as ${timed.tool.name}: of ${listOr(candidates.map((t) => t.name))}, its description is the one that says "${timed.said}".`,
    );
    candidates = [timed.tool];
  }
  // "send payouts": a generic verb that is a word of a candidate's own name picks it (send_payout,
  // never hold_payout, whose description says "requested").
  if (candidates.length > 1 && GENERIC_VERBS.has(verb)) {
    const own = candidates.filter((t) => toolWords(t).name.has(verb));
    if (own.length > 0) candidates = own;
  }
  if (candidates.length > 1 && !markedStatus) {
    const narrowed = candidates.filter(
      (t) => objects.length > 0 && objects.every((o) => matchesGroup(toolWords(t).all, o)),
    );
    if (narrowed.length >= 1) candidates = narrowed;
  }
  // "pay contractor invoices" of pay_contractor and return_deposit (which pays a deposit back): the
  // one whose name says what the verb is said of first picks it.
  // ("email the tenant's landlord": a possessive is not what the verb is said of: asked.)
  const possessive = () =>
    /^\s*[a-z]+\s+(?:(?:the|their|his|her|its|our|your|a|an)\s+)?[a-z-]+(?:'s|s')\s/.test(
      c.raw.toLowerCase(),
    );
  if (candidates.length > 1 && !markedStatus && objects.length > 0 && !possessive()) {
    const byName = candidates.filter((t) => matchesGroup(toolWords(t).name, objects[0]!));
    if (byName.length === 1) {
      ctx.assumptions.push(
        `"${phrase}" is read as ${byName[0]!.name}: of ${listOr(candidates.map((t) => t.name))}, its name says what the action is said of.`,
      );
      candidates = byName;
    }
  }
  // "message the branch" with message_branch and message_member, "the branch" read as the value of
  // a `branch` argument: the one tool that takes every argument the clause gives a value for.
  const valued = [...c.text.matchAll(/"q([0-9]+)"/g)].flatMap(
    (m) => ctx.argQuotes.get(Number(m[1]))?.args ?? [],
  );
  if (candidates.length > 1 && valued.length > 0) {
    const takes = candidates.filter((t) => valued.every((a) => a in ((t.args.properties ?? {}) as object)));
    if (takes.length === 1) candidates = takes;
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
  const approver = candidates.length === 0 ? approverAsked(c.text) : undefined;
  if (approver) {
    ctx.questions.push({
      about: `steps: "${phrase}"`,
      question: `"${phrase}" asks a person (the ${approver}) to decide, and no tool of the catalog asks one. A destructive tool's step waits for a person's approval unless the version is AUTONOMOUS; to make only some calls wait (over an amount, say), a tenant policy rule does it (outcome: require_approval, with a when). Should the draft leave "${phrase}" out?`,
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
  // "alcohol expenses get rejected": a word of the clause that says the opposite of what the
  // chosen tool does (approve_expense, found by "expenses") is never drafted as that tool.
  const toolVerb = [...toolWords(candidates[0]!).name]
    .map((w) => groupOf(ACTION_GROUPS, w))
    .find((g) => g !== undefined);
  const against = toolVerb
    ? content.find((w) => lemmas(w).some((l) => opposite(groupOf(ACTION_GROUPS, l)?.[0] ?? '', toolVerb[0]!)))
    : undefined;
  if (against !== undefined) {
    ctx.questions.push({
      about: `steps: "${phrase}"`,
      question: `"${phrase}" says "${against}", but ${candidates[0]!.name} does the opposite. Which tool should it use? The catalog has ${listOr(ctx.tools.map((t) => t.name))}.`,
      candidates: ctx.tools.map((t) => t.name),
    });
    return undefined;
  }
  // "send the seller a check for the amount": a verb that hands someone something, whose tool was
  // found by its object alone, never lands on a tool that only reads (get_seller does not send;
  // "send it for PO matching", "send it to finance for approval" route to a tool, and stay).
  if (
    GIVING_VERBS.has(verb) &&
    GIVEN_SOMEONE.test(c.text) &&
    candidates[0]!.effect === 'read' &&
    !matchesGroup(toolWords(candidates[0]!).name, [verb])
  ) {
    ctx.questions.push({
      about: `steps: "${phrase}"`,
      question: `"${phrase}" sends or gives something, but ${candidates[0]!.name} only reads. Which tool should it use? The catalog has ${listOr(ctx.tools.filter((t) => t.effect !== 'read').map((t) => t.name))}.`,
      candidates: ctx.tools.filter((t) => t.effect !== 'read').map((t) => t.name),
    });
    return undefined;
  }
  // ("email the vendor" with notify_approver, "notify the reporter" with notify_author: the tool
  // messages someone else. A text read from the words is put back: "email the person who reported
  // it a thank you".)
  const words = showQuotes(c.text, ctx.quotes).toLowerCase();
  const whom = isMessagingVerb(verb) ? otherRecipient(words, candidates[0]!) : undefined;
  if (whom !== undefined) {
    ctx.questions.push({
      about: `steps: "${phrase}"`,
      question: `"${phrase}" is said to the ${whom}, but ${candidates[0]!.name} messages someone else. Which tool should it use, or whom should it message?`,
    });
    return undefined;
  }
  return candidates[0];
}
