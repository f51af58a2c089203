/**
 * A trigger said as a heading at the start of the request ("Alerts:", "critical alert ->",
 * "monitors & headsets -"), and what tells a heading from an action said first ("refund them:").
 */
import { FILLER, isActionVerb, lemmas } from '../request-words.ts';
import { askedAt } from './asked-for.ts';
import { namesEventVerb } from './event-verb-forms.ts';
import { spelledAs } from './one-slip-apart.ts';
import { probing, type RequestContext } from './request-context.ts';
import {
  eventVerbGroup,
  isEventWord,
  isNounOf,
  STAND_INS,
  saysHappened,
  splitType,
} from './trigger-words.ts';
import { isChannelWord } from './value-words.ts';

/**
 * A word that names an action ("pay", "refund", "send"), not the event: an event's noun is not one,
 * nor is a participle that is an event type's own verb ("reported posts:", "flagged posts ->").
 */
export function isActionWord(w: string, ctx: RequestContext): boolean {
  // ("opened cases:", "approved invoices ->": a past participle that says the event happened names it.)
  const eventParticiple =
    /ed$/.test(w) && (saysHappened(w, ctx) || (ctx.events?.some((e) => splitType(e.type)[1] === w) ?? false));
  return isActionVerb(w) && !isEventWord(w, ctx) && !eventParticiple;
}

/**
 * A trigger said as a heading at the start of the request: a few words before ":", "?", "->" or
 * " - " ("Alerts:", "critical alert ->", "new ticket opened?", "An employee submits an expense
 * report - ..."), or before a comma when they say the event happened ("anything that fires on auth,
 * ..."). It names an event's noun or an event verb, or is a word or two naming no action at all
 * ("warnings -> ..."). Null: not a heading.
 */
export function heading(text: string, ctx: RequestContext): RegExpExecArray | null {
  // (A lone dash is no word: "normal tickets - tag them, ..." ends at the dash. "&", "/" and "or"
  // join two values: "monitors & headsets ->", "travel/lodging:"; "and" stays a word, as in
  // "members and non-members:", which says both.)
  const m =
    /^\s*((?:[a-z0-9'][a-z0-9'-]*(?: *[&/] *| +)){0,6}[a-z0-9'][a-z0-9'-]*)\s*(?::|\?(?=\s)|->|\s-\s|,)/.exec(
      text,
    );
  if (!m) return null;
  // Typos read as catalog words, without listing them yet: the trigger reader does when it is one.
  const scratch = probing(ctx);
  const words = m[1]!
    .split(/\s*[&/]\s*|\s+/)
    .filter((w) => w !== 'or')
    .map((w) => spelledAs(w, scratch));
  const comma = /,$/.test(m[0]);
  // (Before a comma, only a way some event of the catalog happens: "anything up to $999 gets paid,"
  // with no *.paid event is an action said in the passive.)
  const verb = words.some(
    (w, i) => (i > 0 || comma) && saysHappened(w, ctx) && (!comma || happensInCatalog(w, ctx)),
  );
  const noun = words.some((w) => STAND_INS.has(w) || ctx.events?.some((e) => isNounOf(w, e)));
  // "refund requests:" names the event; "refund them:", "pay approved invoices," an action.
  // ("email tickets:", "chat cases ->": a channel before the event's noun.)
  const action = (w: string) =>
    isActionWord(w, ctx) && !(isChannelWord(w) && isEventWord(words[words.indexOf(w) + 1] ?? '', ctx));
  // Its first word that is not filler ("tho pay out approved claims, ..." starts with an action).
  const lead = words.find((w) => !FILLER.has(w)) ?? words[0]!;
  // "refund every request, ...": an action verb before a word that picks its object out is the
  // action, even where it is also the event's noun ("refund requests:" is the event).
  const picks = /^(?:every|each|all|any|the|their|those|these|them|it)$/.test(
    words[words.indexOf(lead) + 1] ?? '',
  );
  const acts = action(lead) || (picks && isActionVerb(lead)) || (!verb && words.some(action));
  if (acts || (comma ? !verb : !(noun || verb || words.length <= 2))) return null;
  const at = m.index + m[0].indexOf(m[1]!);
  // "payout requests over $2k get finance approval, then ...": the heading ends where the asking starts.
  // "refund requests under $25 get refunded, ...": an action said in the passive, no way an event
  // of the catalog happens, is the action, and the heading ends before it.
  const passive = /\s(?:gets?|got|are|is|be|should be|will be|must be)\s+([a-z]{3,}ed)\b/.exec(m[1]!);
  const doneBy = (w: string) =>
    isActionVerb(w) || ctx.tools.some((t) => lemmas(w).includes(t.name.split('_')[0]!));
  const acted =
    passive && doneBy(passive[1]!) && !happensInCatalog(passive[1]!, ctx) ? passive.index : undefined;
  const asked = askedAt(m[1]!, ctx) ?? acted;
  const said = asked === undefined ? m[1]! : m[1]!.slice(0, asked).trimEnd();
  return Object.assign([said], { index: at, input: text }) as unknown as RegExpExecArray;
}

/** Whether some event of the catalog (any, when none is known) happens the way `w` says. */
function happensInCatalog(w: string, ctx: RequestContext): boolean {
  if (!ctx.events) return true;
  const group = eventVerbGroup(w);
  return ctx.events.some((e) => {
    const verb = lemmas(splitType(e.type)[1]);
    return group
      ? verb.some((v) => group.includes(v))
      : lemmas(w).some((l) => l.length > 3 && verb.includes(l)) || namesEventVerb(w, e);
  });
}
