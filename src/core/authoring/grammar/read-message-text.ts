/**
 * Message texts said without quotes, after a messaging verb: "DM them: thanks, your request is with
 * your manager now", "tell them: Requests over 30 days need a written justification, please
 * resubmit.", "let them know billing access goes through finance", "reply We got your message and
 * will be in touch.", "ping the requester that it is done". The text becomes a quotation, as if typed
 * in quotes (first letter capitalised, a full stop added when it has no end mark), read before every
 * other reader: so no word inside it (a day, an hour, "otherwise", "no", a number, an amount, a verb)
 * is ever read as a condition, a duration, a cap or a step. Each one is listed under Assumed.
 *
 * - After a colon ("<verb> [whom]: <text>") the text runs to the end of the request, or to a
 *   sentence that starts a next instruction ("... please contact IT. Otherwise get their manager to
 *   sign off"), or to ", <an action of the catalog> it/them/the ...".
 * - Without one, the words must read as a sentence said to the person: after "let <whom> know" any
 *   words but a lead-in ("about", "when", "if", ...); after the other verbs, words that speak to
 *   them ("we", "you", "your", "our", "thanks", "sorry", ...). They run to the end of the sentence,
 *   or to ", <an action of the catalog> it/them".
 * - "<verb> [whom] that <text>" for the verbs `quoteUnquoted` (read-spelling.ts) does not read
 *   (dm, ping, email, notify, ack): the text after "that", to the end of the sentence.
 * - "the author should be told: ...", "warn the author: ...", "page them with: ...", "a status post
 *   saying we're on it": "told", "warn", "with" right before its colon, and "saying" anywhere lead a
 *   text too ("saying" without a colon: words that speak to the person, to a comma at most), so the
 *   words of the text are never read as an action of their own.
 *
 * - "text them: ...", "sms the guest ...": a text too (sent by SMS where one tool can, `smsTool`); a
 *   channel may stand where whom the words go to does ("complaints ping #duty-managers: ...").
 *
 * Also: `messagingTool`, the one tool of the catalog a messaging verb ("DM", "ping", "email them",
 * "let them know", "ack") means when no tool names the verb itself.
 */
import type { ToolDescriptor } from '../../tools/tool-descriptor.ts';
import { ACTION_GROUPS, groupOf, lemmas } from '../request-words.ts';
import type { RequestContext } from './request-context.ts';
import { toolWords } from './tool-words.ts';
import { isEventWord } from './trigger-words.ts';

/** Verbs that send words to a person. */
const VERBS =
  'reply|respond|answer|tell|told|warn|email|e-mail|mail|dm|pm|ping|message|msg|sms|text|notify|inform|ack|acknowledge|write(?: back)?|say|saying|telling|with|let|post|announce|publish|send';
/** The words of `VERBS`: read wherever a step sends words a person typed (read-coverage.ts). */
export const MESSAGE_VERBS = new Set(VERBS.split(/[|() ?:]+/).filter(Boolean));
/** Lead-ins that are no verb of their own: "with: <text>" (right before its colon), "saying <text>". */
/** "send" leads words to send only before a colon ("send them: thanks, ..."): "send them a link" is no text. */
const LEADS = new Set(['with', 'saying', 'telling']);
/** Who the words go to, after the verb (no colon): one short noun phrase. */
const WHOM = String.raw`(?:to\s+)?(?:them|him|her|em|(?:the|every|each|all)\s+[a-z-]+|their\s+[a-z-]+|the\s+[a-z-]+'s\s+[a-z-]+)(?:\s+(?:afterwards|after|too|also|then|back))?`;
/** A channel the words go to, after the verb: "ping #duty-managers: ...", "post in #ops: ...". */
const CHANNEL = String.raw`\s+(?:(?:in|to|on|into)\s+)?#[a-z0-9][a-z0-9_-]*`;
/** Verbs `quoteUnquoted` reads "<verb> that <text>" for (with commas ending the text). */
const READ_ELSEWHERE = new Set(['reply', 'respond', 'answer', 'tell', 'message', 'say', 'write', 'let']);
/** Words that speak to the person: the words after the verb are what to say. */
const SPOKEN =
  /^(?:thanks|thank|sorry|hi|hello|hey|welcome|got|please|apologies|good news|unfortunately)\b|\b(?:we|we'll|we're|we've|we'd|i|i'm|i'll|i've|you|you're|you'll|you've|your|our|us)\b/;
/** Words after the verb that lead something other than the words to say ("every ticket with a ..."). */
const NOT_A_TEXT =
  /^(?:"q|every\b|each\b|all\b|any\b|that\b|saying\b|telling\b|with\b|to\b|about\b|when\b|whenever\b|if\b|unless\b|by\b|in\b|on\b|at\b|for\b|via\b|through\b|and\b|then\b|it\b|them\b|once\b|as\b|using\b|before\b|after\b|too\b|also\b)/;
/** A sentence that starts with the test its action is for ("with 3 or more ..., cancel it"). */
const TEST_FIRST = /^(?:with|if|when|whenever|for|unless|only|once|after|before)\b/;
/** A sentence that starts a next instruction, after a text. */
const NEXT_INSTRUCTION =
  /^(?:otherwise|else|if|unless|when|whenever|then|also|and|after|afterwards|finally|next|but|don'?t|dont|do not|never|only|except|in that case|for everyone|for all)\b/;
/**
 * The same person told again, right after whom the words go to ("..., just let them know", "and
 * tell them"): the text is the first verb's. Another person ("then message the adjusters ...") is
 * a step of its own.
 */
const LEADS_NEXT_VERB = new RegExp(
  String.raw`^(?:(?:just|please|also|and)\s+)*(?:let\s+(?:them|him|her|em)\s+know|(?:${VERBS})\s+(?:them|him|her|em))\b`,
);
/** Words that report what to say rather than say it ("roughly when we'll get back to them"). */
const ASKED_OF = /^(?:[a-z]+\s+)?(?:when|what|why|how|where|whether|if)\b/;
const REPORTED = new RegExp(String.raw`${ASKED_OF.source}|\b(?:them|they|their|theirs)\b`);
/** Whom the words go to, at the start of the words after the verb. */
const LEADING_WHOM = new RegExp(String.raw`^\s*${WHOM}(?![a-z'-])`);
/**
 * Without a colon, what ends a text as a restriction of its step ("unless ...", "except ..."), or
 * a spaced dash before a next instruction.
 */
const RESTRICTION = new RegExp(
  String.raw`,?\s+(?:-\s+)?(?:unless|except|only if|only for|only when|but only|provided(?: that)?|as long as)\b|\s+-\s+(?=${NEXT_INSTRUCTION.source.slice(1)})`,
  'g',
);

/**
 * Whether a text starts at `rest` (raw) by its capital alone: a capitalised word ("Analytics",
 * not "I" or an all-capitals word) right after a verb typed in lower case and whom it goes to
 * ("tell them Analytics viewer access granted").
 */
function capitalised(rest: string, lead: string, verb: string): boolean {
  return (
    /^[a-z]/.test(verb) &&
    LEADING_WHOM.test(lead) &&
    /^[A-Z][a-z]/.test(rest) &&
    !NEXT_INSTRUCTION.test(rest.toLowerCase()) &&
    !/^(?:not|no|or|before|once|do)\b/i.test(rest)
  );
}

/** A word that names an action one of the catalog's tools does (its group's words too). */
export function catalogVerbs(ctx: RequestContext): Set<string> {
  const out = new Set<string>();
  for (const g of ACTION_GROUPS)
    if (ctx.tools.some((t) => g.some((w) => toolWords(t).name.has(w) || toolWords(t).first.has(w))))
      for (const w of g) out.add(w);
  for (const t of ctx.tools) for (const w of toolWords(t).first) out.add(w);
  if (smsTool('text', ctx) !== undefined) out.add('text').add('sms');
  return out;
}

/** Where a text that starts at `from` ends (exclusive), by the rules of the file's comment. */
export function textEnd(lower: string, from: number, colon: boolean, verbs: Set<string>): number {
  let end = lower.length;
  // ", tag it ...", "and then close it": the next action of the catalog.
  // (An action with an amount ends it whatever its verb: ", and give a $20 credit", ", then credit $20".)
  const action =
    /(?:,\s*(?:and\s+)?|\s+(?:and|&)\s+|\s+-\s+)(?:then\s+)?(?:([a-z]+)\s+(?:(?:(?:a|an|them|him|her|it)\s+)?(?:up to\s+)?(\$[0-9])|(?:it|them|em|the|their|this|that|a|an|what|whatever)\b|"q[0-9])|(?:post|notify|ping|message|msg|share|announce|alert)\s+(?:(?:in|to|on)\s+)?#[a-z0-9])|,?\s+(?:and\s+)?then\s+|\s*&\s*then\s+/g;
  action.lastIndex = from;
  for (let m = action.exec(lower); m; m = action.exec(lower)) {
    const then = /\bthen\s/.test(m[0]);
    if (m[1] === undefined || m[2] !== undefined || then || lemmas(m[1]).some((l) => verbs.has(l))) {
      end = m.index;
      // ("email them: sorry. with 3 or more missed payments, cancel it": a sentence that starts with
      // the test its action is for is its own, never words to send; "Lost package. Cancel the
      // shipment ..." may be words to send, and "Thanks. We'll refund you, tag it ..." are.)
      const stops = [...lower.slice(from, end).matchAll(/[.;!?](?=\s)/g)];
      const at = stops.length > 0 ? from + stops.at(-1)!.index! + 1 : -1;
      if (at > 0 && TEST_FIRST.test(lower.slice(at, end).trim())) end = at;
      break;
    }
  }
  // Without a colon, "unless ...", "except ..." is a restriction of the step, not its words; one
  // said to the person ("we can only refund once unless you contact support") stays in them.
  // With one, only after a comma ("text them: sorry, only for gold members": whom the refund is for).
  RESTRICTION.lastIndex = from;
  for (let m = RESTRICTION.exec(lower); m && m.index < end; m = RESTRICTION.exec(lower)) {
    if (colon && !m[0].startsWith(',')) continue;
    const clause = lower.slice(m.index + m[0].length).split(/[.;!?,](?:\s|$)/)[0] ?? '';
    if (/\b(?:you|your|you're|you've|you'll)\b/.test(clause)) continue;
    end = m.index;
    break;
  }
  const stop = /[.;!?]+(?=\s|$)|\n/g;
  stop.lastIndex = from;
  for (let m = stop.exec(lower); m && m.index < end; m = stop.exec(lower)) {
    const after = m.index + m[0].length;
    const next = lower.slice(after).trimStart();
    // Without a colon the text is one sentence; with one, it runs on until an instruction starts.
    if (
      !colon ||
      m[0].includes(';') ||
      NEXT_INSTRUCTION.test(next) ||
      // (". credit $20 for dining": an action with an amount, whatever its verb.)
      /^[a-z]+\s+(?:(?:a|an|them|him|her)\s+)?(?:up to\s+)?\$[0-9]/.test(next) ||
      lemmas(/^[a-z]+/.exec(next)?.[0] ?? '').some((l) => verbs.has(l))
    )
      return m[0].includes(';') || !colon ? m.index : after;
  }
  return end;
}

/** The text as a sentence: first letter capitalised, a full stop added when it has no end mark. */
export function asSentence(said: string): string {
  const t = said.trim().replace(/\s+/g, ' ');
  return `${t[0]!.toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`;
}

/** Reads the unquoted message texts of a request (see the file's comment) into quotations. */
export function readMessageTexts(
  lower: string,
  raw: string,
  ctx: RequestContext,
): { lower: string; raw: string } {
  const verbs = catalogVerbs(ctx);
  let l = lower;
  let r = raw;
  // A messaging verb at the start of a clause.
  const re = new RegExp(String.raw`\b(${VERBS})\b`, 'g');
  for (let m = re.exec(l); m; m = re.exec(l)) {
    const verb = m[1]!;
    // A messaging verb at the start of a clause; elsewhere ("when a booking is cancelled email
    // them: ...") only right before its colon.
    const clauseStart = /(?:^|[,;:.!?&+(]\s*|\s-\s+|\b(?:and|then|just|also|please|so|but)\s+)$/.test(
      l.slice(0, m.index),
    );
    const at = m.index + verb.length;
    const rest = l.slice(at);
    let start: number | undefined;
    let colon = false;
    let afterComma = false;
    // Where the action is said again before the words ("..., just let them know <words>"): blanked.
    let restated: { at: number; length: number } | undefined;
    // "<verb> [whom]: <text>": a colon within a few words of the verb, no other mark before it.
    // (A channel or handle may be among them: "post in #escalations: ..."; a spaced dash is a colon.)
    const c = clauseStart
      ? /^((?:\s+[a-z0-9#@'_-]+){0,6}?)(?:\s*:|\s+-)\s+(?=\S)/.exec(rest)
      : new RegExp(String.raw`^(?:\s+${WHOM}|${CHANNEL})?(?:\s*:|\s+-)\s+(?=\S)`).exec(rest);
    // "text them", "sms the guest": only with whom the words go to ("text: ..." names an argument).
    if ((verb === 'text' || verb === 'sms') && !LEADING_WHOM.test(rest)) continue;
    // "with" leads a text only right before its colon; "saying" anywhere ("a status post saying we're on it").
    if (verb === 'with' && !/^\s*:/.test(rest)) continue;
    if (verb === 'send' && !c) continue;
    if (!clauseStart && !c && verb !== 'saying' && verb !== 'telling') continue;
    // "email tickets: ...", "chat cases ->": a channel heading the event's noun, not a message.
    // ("reply refund issued, thanks ..." is a text: the event's noun heads nothing there).
    if (isEventWord(/^\s+([a-z-]+)\s*(?::|-+>|→|\s-\s)/.exec(rest)?.[1] ?? '', ctx)) continue;
    // (A spaced dash after words that speak to the person is inside the text: "email Sorry your
    // parcel is late - we've added $10 credit".)
    const dashInText =
      c !== null &&
      !/:\s*$/.test(c[0].trimEnd()) &&
      SPOKEN.test((c[1] ?? '').replace(LEADING_WHOM, '').trim());
    if (c && !dashInText && verb !== 'say' && !/"q/.test(c[0]) && (!LEADS.has(verb) || /^\s*:/.test(c[0]))) {
      start = at + c[0].length;
      colon = true;
    } else if (verb === 'let') {
      const k = /^\s+(?:[a-z-]+\s+){1,3}?know\s+(?:that\s+)?/.exec(rest);
      const words = k ? rest.slice(k[0].length) : '';
      if (k && !/\bthat\s+$/.test(k[0]) && !NOT_A_TEXT.test(words) && !ASKED_OF.test(words))
        start = at + k[0].length;
    } else {
      // ("message them, Payroll access is handled by HR, ...": a comma after whom it goes to.)
      // ("reply telling them <text>": whom the words go to, after "telling" as after a verb.)
      const w = new RegExp(
        String.raw`^${LEADS.has(verb) && verb !== 'telling' ? '' : `(?:\\s+${WHOM},?)?`}\s+(that\s+)?`,
      ).exec(rest);
      if (w) {
        const after = rest.slice(w[0].length);
        const comma = w[0].includes(',');
        // ("acknowledge every ticket, just let them know we've got it": the action said again, with
        // the words to send; the words are this verb's, and the restating verb goes.)
        const again = LEADS_NEXT_VERB.exec(after);
        const words = again ? after.slice(again[0].length).replace(/^\s+(?:that\s+)?/, '') : '';
        if (again && SPOKEN.test(words) && !NOT_A_TEXT.test(words) && !REPORTED.test(words)) {
          start = at + rest.length - words.length;
          restated = { at: at + w[0].length, length: again[0].length };
          afterComma = true;
        } else if (again) continue;
        else if (w[1] !== undefined) {
          if (!READ_ELSEWHERE.has(verb)) start = at + w[0].length;
        } else if (
          (SPOKEN.test(after) || capitalised(r.slice(at + w[0].length), w[0], r.slice(m.index, at))) &&
          !NOT_A_TEXT.test(after) &&
          // (After a comma, "note: ..." / "reason = ..." names an argument: read-named-texts.ts's.)
          !(comma && /^[a-z_]+(?:\s+[a-z_]+)?\s*[:=]/.test(after))
        ) {
          start = at + w[0].length;
          afterComma = comma;
        }
      }
    }
    if (start === undefined) continue;
    let end = textEnd(l, start, colon, verbs);
    // "a reply saying we're on it, and refund them": without a colon, a lead-in's text ends at a comma.
    const comma = LEADS.has(verb) && !colon ? l.slice(start, end).indexOf(',') : -1;
    if (comma >= 0) end = start + comma;
    // ("sms them w/ note we're on it": the note's name leads the words, no part of them.)
    const said = r
      .slice(start, end)
      .trim()
      .replace(/^(?:w\/|with)\s+(?:the\s+|a\s+)?(?:note|message|text)\s*:?\s+/i, '');
    const words = said.split(/\s+/).filter(Boolean);
    const len = l.slice(start, end).trimEnd().length;
    // (One word after a colon that speaks to the person is the words: "text the guest: sorry, then ...".)
    if ((words.length < 2 && !(colon && SPOKEN.test(said.toLowerCase()))) || /"q[0-9]+"/.test(said)) continue;
    const mark = `"q${ctx.quotes.length}"`;
    if (mark.length > len) continue;
    const text = asSentence(said);
    ctx.quotes.push(text);
    ctx.assumptions.push(
      `The text ${JSON.stringify(said)} is read as the words to send: ${JSON.stringify(text)}.`,
    );
    // The colon (or comma, or dash) led the text: it is no clause break ("DM them: ..." is one action).
    const from = colon || afterComma ? at : start;
    // ("dm them afterwards: ...": the order is the words' own; the word would split the clause.)
    // (The raw text keeps its own letters: "email the FOM: ..." still says FOM in capitals.)
    const leadOf = (t: string) =>
      t
        .slice(from, start)
        .replace(/:|,|(?<=\s)-(?=\s)/, ' ')
        .replace(/(?<=\s)(?:afterwards|after that|too|also|as well)(?=\s*$)/i, (w) => ' '.repeat(w.length));
    const lead = leadOf(l);
    const blank = (t: string) =>
      restated
        ? t.slice(0, restated.at) + ' '.repeat(restated.length) + t.slice(restated.at + restated.length)
        : t;
    l = blank(l.slice(0, from) + lead + mark.padEnd(len, ' ') + l.slice(start + len));
    // "let them know ...": the action is to message them.
    if (verb === 'let' && /^\s+(?:them|him|her|em)\s+know\b/.test(rest))
      l = `${l.slice(0, m.index)}msg${l.slice(m.index + 3)}`;
    r = blank(r.slice(0, from) + leadOf(r) + mark.padEnd(len, ' ') + r.slice(start + len));
    re.lastIndex = start + len;
  }
  return { lower: l, raw: r };
}

/**
 * Whether a tool sends to `channel`: an argument named for a channel (`channel`, `post_channel`) whose
 * `enum` lists it (with or without its `#`), or, unless `listed`, that takes any text.
 */
export function takesChannel(t: ToolDescriptor, channel: string, opts: { listed?: boolean } = {}): boolean {
  const props =
    (t.args as { properties?: Record<string, { type?: unknown; enum?: unknown }> }).properties ?? {};
  return Object.entries(props).some(
    ([n, p]) =>
      /(?:^|_)channel$/.test(n) &&
      (Array.isArray(p?.enum)
        ? p.enum.some((v) => v === channel || v === `#${channel}`)
        : !opts.listed && p?.type === 'string'),
  );
}

/**
 * "text them", "sms the guest": the one tool of the catalog that sends by a channel whose `enum`
 * lists `sms`, when no tool is named for texting; undefined elsewhere ("text the customer" with no
 * such tool is no action of the catalog: asked).
 */
export function smsTool(verb: string, ctx: RequestContext, whom?: string): ToolDescriptor | undefined {
  if ((verb !== 'text' && verb !== 'sms') || namedForTexting(ctx)) return undefined;
  const tools = ctx.tools.filter((t) => takesChannel(t, 'sms', { listed: true }));
  // ("text the duty manager": someone the tool does not message, asked.)
  const theirs = (t: ToolDescriptor) =>
    whom === undefined || lemmas(whom).some((l) => `${t.name} ${t.description}`.toLowerCase().includes(l));
  return tools.length === 1 && theirs(tools[0]!) ? tools[0] : undefined;
}

/** Whether a tool of the catalog is named for texting (`text_claimant`): "text them" names it. */
export const namedForTexting = (ctx: RequestContext): boolean =>
  ctx.tools.some((t) => t.name.split('_').some((w) => w === 'text' || w === 'sms'));

/** Verbs that send words to a person, and the action groups a messaging tool is named by. */
const MESSAGING = new Set(['dm', 'pm', 'ping', 'message', 'msg', 'email', 'mail', 'e-mail', 'ack']);
const MESSAGING_GROUPS = ['notify', 'reply', 'email'].map((g) => groupOf(ACTION_GROUPS, g)!);

/** A verb that sends words to a person: "email", "DM", "notify", "tell", "reply". */
export const isMessagingVerb = (verb: string): boolean =>
  lemmas(verb).some((l) => MESSAGING.has(l) || MESSAGING_GROUPS.some((g) => g.includes(l)));

/**
 * The one tool of the catalog that sends words to a person (named or described by notifying,
 * replying, messaging or emailing), for a messaging verb no tool names itself ("DM them", "email
 * them" with a tool that "Messages the employee", "ack" with `send_acknowledgement`); undefined
 * when the verb is no messaging verb, or the catalog has none or several such tools.
 */
export function messagingTool(verb: string, ctx: RequestContext) {
  if (!isMessagingVerb(verb)) return undefined;
  const tools = ctx.tools.filter((t) =>
    MESSAGING_GROUPS.some((g) => g.some((w) => toolWords(t).name.has(w) || toolWords(t).first.has(w))),
  );
  return tools.length === 1 ? tools[0] : undefined;
}

/** People a message is said to, one kind per group ("the customer" and "the claimant" are one). */
const RECIPIENTS = [
  // The person a run is about, as each desk calls them (the employee who requested access).
  [
    'customer',
    'client',
    'claimant',
    'requester',
    'user',
    'member',
    'holder',
    'policyholder',
    'subscriber',
    'employee',
    'applicant',
    'candidate',
  ],
  ['vendor', 'supplier'],
  ['seller', 'merchant'],
  ['author', 'poster'],
  ['reporter'],
  ['approver'],
  ['manager'],
];
const recipientGroup = (w: string) => RECIPIENTS.find((g) => lemmas(w).some((l) => g.includes(l)));

/**
 * Whom a message is said to when the catalog's one messaging tool messages someone else: "email
 * the vendor" with `notify_approver`, "email the person who reported it" with `notify_author`.
 * Undefined when the words say no one in particular ("email them"), or the tool is named for no
 * one, or for the same person.
 */
export function otherRecipient(text: string, tool: { name: string }): string | undefined {
  // (A text read from the words is shown in quotes: "email the person 'who reported it ...'".)
  const m = /^\s*[a-z-]+\s+(?:(?:the|their|our|a|an|each|every|all)\s+)?([a-z]+)(\s+'?who\s+[a-z]+)?/.exec(
    text,
  );
  if (!m) return undefined;
  const ownGroups = tool.name
    .toLowerCase()
    .split(/[^a-z]+/)
    .map(recipientGroup)
    .filter((g) => g !== undefined);
  if (ownGroups.length === 0) return undefined;
  // ("the person who reported it": someone said by what they did, which no tool's name says.)
  if (m[2] !== undefined && /^(?:person|people|one|someone)$/.test(m[1]!))
    return `${m[1]} ${m[2].trim().replace(/^'/, '')}`;
  const group = recipientGroup(m[1]!);
  return group === undefined || ownGroups.includes(group) ? undefined : m[1];
}
