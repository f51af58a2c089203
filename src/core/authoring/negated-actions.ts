/**
 * Actions a request forbids: "don't refund anything yet", "do NOT page anyone", "dont pay",
 * "never close it", "no refunds", "reply without refunding". Read on the request as written, apart
 * from the grammar, so that the safety checks (draft-safety.ts) catch a compiler — offline or a
 * model — that drafts a forbidden action. A negation that bounds or gates its action ("don't pay more
 * than $50", "no refunds above 75", "never refund without approval", "don't close until I approve")
 * forbids nothing: it is a cap, a condition or an approval, read elsewhere. Pure.
 */
import { FILLER, lemmas } from './request-words.ts';

/**
 * Words after a negation that make it a bound, a condition or an approval, not a ban ("don't forget
 * to refund them" asks for the refund).
 */
export const NOT_A_BAN =
  /\b(?:forget|fail|hesitate|more|less|than|over|above|under|below|exceed\w*|beyond|past|up to|at most|max\w*|cap\w*|limit\w*|without|until|till|unless|before|after|approv\w*|ask\w*|permission|sign-?off|ok|okay|twice|again|if|when|whenever|once|only|except|tier)\b|[0-9$£€<>]/;

/** An approval said first after a negation: "approve", "approval", "get a manager's approval". */
export const APPROVAL =
  /^\s*(?:(?:get|ask for|need|request|wait for)\s+)?(?:(?:a|an|the|any)\s+)?(?:[a-z]+'s\s+)?approv(?:e|ing|al)\b/;

/**
 * Whether the words after a negation bound or gate its action (`NOT_A_BAN`) rather than forbid it.
 * Approving is an action of its own: "don't approve it, just pay", "no approval needed", "don't get
 * a manager's approval" forbid the approval (the words after it are what may gate it: "don't approve
 * without a receipt").
 */
export function notABan(rest: string): boolean {
  const approve = APPROVAL.exec(rest);
  return NOT_A_BAN.test(approve ? rest.slice(approve[0].length) : rest);
}

/**
 * Whether the clause just before an "unless" (or an "if") forbids its own action: "don't build
 * the export unless identity is verified" builds it only when it is; "don't pay it out (max $2000)
 * unless the region is us" pays only US ones; "don't remove them if the post is spam" removes the
 * others. The clause starts after a sentence's end, a colon, a comma, "and", "then" or "but":
 * "don't email the holder, cancel the policy unless the plan is basic" cancels every plan but
 * basic.
 */
export function forbidsUnless(before: string): boolean {
  const sentence = before.split(/[.;!?:]/).pop() ?? '';
  // (The last clause with words: "don't refund it, unless ..." is still the refund's.)
  const clause = sentence
    .split(/,|\band\b|\bthen\b|\bbut\b/)
    .map((c) => c.trim())
    .filter((c) => c !== '')
    .pop();
  return /\b(?:don'?t|do not|never)\b/.test(clause ?? '');
}

/** The negations that may start a ban. */
const NEGATION =
  /\b(?:don'?t|dont|do not|never|no|without|not|skip|hold off on|leave out)\s+(?:(?:ever|yet|even|actually|please|need to|have to|go|bother(?: to| with)?)\s+)*/g;

/** One forbidden action: the words as written and the plain forms of its verb (or noun). */
export interface NegatedAction {
  readonly words: string;
  readonly lemmas: readonly string[];
}

/** The actions `request` forbids outright. */
export function negatedActions(request: string): NegatedAction[] {
  const t = request.toLowerCase().replace(/[\u2018\u2019]/g, "'");
  const out: NegatedAction[] = [];
  for (const m of t.matchAll(NEGATION)) {
    const from = m.index + m[0].length;
    // The rest of its clause: up to a sentence end, a comma or the next action.
    const rest = t.slice(from).split(/[.,;:!?\n]|\s(?:and|but|then|so|instead)\s/)[0] ?? '';
    // ("without approval" gates the action said with it: never a ban on the approval.)
    if (/^without\b/.test(m[0]) ? NOT_A_BAN.test(rest) : notABan(rest)) continue;
    const word = rest.split(/[^a-z'-]+/).find((w) => w && !FILLER.has(w));
    if (!word) continue;
    out.push({ words: t.slice(m.index, from + rest.length).trim(), lemmas: lemmas(word) });
  }
  return out;
}
