/**
 * Yes/no fields of an event said as a word of the request: "verified customers", "verified only",
 * "if they're verified" is `payload.identity_verified == true`; "unverified", "not verified yet",
 * "isn't verified" is `== false`. A yes/no field is one every sample event gives as true or false
 * (`EventShape.flags`); its word is the last part of its name (`identity_verified`: "verified",
 * `is_vip`: "vip"). A word two flags end in, or said both ways, is left for the question. Pure.
 */
import type { EventShape } from '../compiled-request.ts';
import { lemmas } from '../request-words.ts';
import { cutOut, type RequestContext, type RequestText } from './request-context.ts';

/** The yes/no field of `shape` a word names ("verified" -> identity_verified), and whether it is turned around ("unverified"). */
export function flagOf(word: string, shape: EventShape): { field: string; negated: boolean } | undefined {
  const turned = /^(?:un|non-?)([a-z].*)$/.exec(word)?.[1];
  // The event's own noun names the events, never a flag ("payout" is no `first_payout`).
  const noun = shape.type.split('.')[0]!;
  for (const [w, negated] of [[word, false], ...(turned ? [[turned, true] as const] : [])] as const) {
    const forms = lemmas(w);
    if (forms.includes(noun)) continue;
    const hits = (shape.flags ?? []).filter((f) => forms.includes(f.split('_').pop()!));
    if (hits.length === 1) return { field: hits[0]!, negated };
    if (hits.length > 1) return undefined;
  }
  return undefined;
}

/** A flag's test, as the trigger's `when` says it. */
function flagTest(field: string, value: boolean): string {
  return `payload.${field} == ${value}`;
}

/**
 * The test a word of the trigger clause or an aside says when it names a yes/no field ("verified
 * customers", "(unverified)"; `negated`: said after "not" / "except"), listed under Assumed.
 */
export function flagWordTest(
  word: string,
  negated: boolean,
  shape: EventShape,
  ctx: RequestContext,
): string | undefined {
  const flag = flagOf(word, shape);
  if (!flag) return undefined;
  const value = flag.negated === negated;
  ctx.assumptions.push(`"${word}" is read as the ${shape.type} event's ${flag.field} being ${value}.`);
  return flagTest(flag.field, value);
}

/** Words said before a yes/no field's name that say which way it is: "without autopay", "no autopay". */
const SAYS_NO = new Set(['no', 'without', 'non', 'not', 'off', 'never', 'disabled', 'false']);
const SAYS_YES = new Set(['with', 'yes', 'on', 'enabled', 'active', 'true']);

/** Which way a word says a yes/no field is ("off", "false": false); undefined when neither. */
export const yesOrNo = (word: string): boolean | undefined =>
  SAYS_YES.has(word) ? true : SAYS_NO.has(word) ? false : undefined;

/**
 * Which way a value said of the yes/no field `field` says it is ("identity is verified": true for
 * `identity_verified`; "unverified", "no", "false": false); undefined for any other value.
 */
export function flagValueOf(said: string, field: string): boolean | undefined {
  const word = said.trim();
  const yes = yesOrNo(word);
  if (yes !== undefined) return yes;
  const own = lemmas(field.split('_').pop()!);
  if (lemmas(word).some((l) => own.includes(l))) return true;
  const turned = /^(?:un|non-?|not )([a-z].*)$/.exec(word)?.[1];
  return turned !== undefined && lemmas(turned).some((l) => own.includes(l)) ? false : undefined;
}

/**
 * The test a word said just before a yes/no field's own name says ("policies without autopay",
 * "with no autopay": `payload.autopay == false`), listed under Assumed; `negated`: said after "not"
 * / "except". Undefined for a flag whose word says neither way ("premium autopay"): a flag is
 * true or false, never a word, so the caller asks. Null when `field` is no yes/no field.
 */
export function flagNamedTest(
  word: string,
  field: string,
  negated: boolean,
  shape: EventShape,
  ctx: RequestContext,
): string | undefined | null {
  if (!shape.flags?.includes(field)) return null;
  const yes = yesOrNo(word);
  if (yes === undefined) return undefined;
  const value = yes !== negated;
  ctx.assumptions.push(`"${word} ${field}" is read as the ${shape.type} event's ${field} being ${value}.`);
  return flagTest(field, value);
}

/** Words just before a flag's word that turn it around ("isn't verified", "not yet verified", "havent activated"). */
const NOT =
  /\b(?:not|isn'?t|aren'?t|wasn'?t|weren'?t|haven'?t|hasn'?t|hadn'?t|didn'?t|never|no longer|no|without)(?:\s+(?:yet|been|be|fully|already|a|an|the|any))*\s+$/;
/** Words after a flag's word that say it is not so: "autopay is no", "autopay off", "autopay = false". */
const SAID_NO =
  /^\s*(?:(?:is|are|was|were|=|==|:)\s*)?(?:no|false|off|disabled|none|not\s+(?:on|set|enabled))\b/;
/** The lead-in of a test of the flag said as a condition: "if they're", "once the customer is", "only when". */
const CONDITION =
  /\b(?:only\s+)?(?:if|when|once|as long as|provided)\s+(?:(?:the|their|a|an)\s+[a-z]+\s+|(?:they|it|he|she)\s*)?(?:is|are|'s|'re|re|has been|have been|gets|get|got|been)?\s*$/;
/** A request that says what happens otherwise: the flag is a branch's test, for the branch readers. */
const BRANCHING = /\b(?:otherwise|else|instead|if not|unless)\b/;

/**
 * The yes/no fields the rest of the request says ("verified only", "if they're verified",
 * "unverified customers"), as tests of the trigger, each word cut out and listed under Assumed.
 * None when the request branches (what happens otherwise is the branch readers' to read).
 */
export function readFlags(buf: RequestText, raw: string, shape: EventShape, ctx: RequestContext): string[] {
  if (!shape.flags?.length || BRANCHING.test(buf.text)) return [];
  const out = new Map<string, { value: boolean; said: string }>();
  const cuts: { index: number; 0: string }[] = [];
  for (const m of buf.text.matchAll(/\b[a-z][a-z-]*\b/g)) {
    const flag = flagOf(m[0], shape);
    if (!flag) continue;
    const before = buf.text.slice(Math.max(0, m.index! - 30), m.index);
    // "id verified", "identity verified": the field's other words go with it.
    const parts = flag.field.split('_').slice(0, -1);
    // The negation as written, even where another reader took its words ("the customer is not a
    // member"), before the field's other words ("no police report").
    const rawBefore = raw.slice(Math.max(0, m.index! - 30), m.index).toLowerCase();
    const partsSaid = parts.length
      ? (new RegExp(`(?:\\b(?:${parts.join('|')})\\s+)+$`).exec(rawBefore)?.[0] ?? '')
      : '';
    const not = NOT.exec(rawBefore.slice(0, rawBefore.length - partsSaid.length));
    // "autopay is no", "autopay off": said after it.
    const after = SAID_NO.exec(buf.text.slice(m.index! + m[0].length));
    const value = !(flag.negated || not !== null || after !== null);
    if ((out.get(flag.field)?.value ?? value) !== value) return [];
    const named = /([a-z]{2,})\s+$/.exec(before);
    const lead = !not && named && parts.some((p) => p.startsWith(named[1]!)) ? named[0].length : 0;
    let start = m.index! - (not ? not[0].length + partsSaid.length : lead);
    // "if they're verified", "once the customer is verified": the test's own lead-in goes too.
    const cond = CONDITION.exec(buf.text.slice(Math.max(0, start - 40), start));
    if (cond) start -= cond[0].length;
    // "verified only", "not verified yet": so does a word after it that only stresses it.
    const end =
      m.index! +
      m[0].length +
      (after?.[0].length ??
        /^\s+(?:only|yet)\b/.exec(buf.text.slice(m.index! + m[0].length))?.[0].length ??
        0);
    const said = buf.text.slice(start, end);
    out.set(flag.field, { value, said });
    cuts.push({ index: start, 0: said });
  }
  for (const c of cuts) cutOut(buf, c);
  return [...out].map(([field, { value, said }]) => {
    ctx.assumptions.push(`"${said}" is read as the ${shape.type} event's ${field} being ${value}.`);
    return flagTest(field, value);
  });
}

/**
 * "with no police report", "autopay is no": in a trigger clause's words (`qs`, in order), a word
 * saying no just before a yes/no field's word, or just after it, turns it around. The words turned,
 * and the words that said no (read with them).
 */
export function turnedFlags<Q extends { word: string; clause: string; field?: string }>(
  qs: readonly Q[],
  shape: EventShape,
): { turned: Set<Q>; sayNo: Set<Q> } {
  const turned = new Set<Q>();
  const sayNo = new Set<Q>();
  qs.forEach((q, i) => {
    if (yesOrNo(q.word) !== false) return;
    const flag = [qs[i + 1], qs[i + 2], qs[i - 1]].find(
      (x) => x !== undefined && x.clause === q.clause && x.field === undefined && flagOf(x.word, shape),
    );
    if (flag) {
      turned.add(flag);
      sayNo.add(q);
    }
  });
  return { turned, sayNo };
}

/**
 * The test a word of the trigger clause says of a yes/no field: "verified", "unverified" (`turned`:
 * a word beside it said no), or a word before the field's own name ("without autopay"). Null when
 * it names none; undefined when it names one but says neither way (the caller asks).
 */
export function flagQualifierTest(
  q: { readonly word: string; readonly field?: string; readonly negated?: boolean },
  turned: boolean,
  shape: EventShape,
  ctx: RequestContext,
): string | undefined | null {
  if (q.field !== undefined) return flagNamedTest(q.word, q.field, q.negated ?? false, shape, ctx);
  return flagWordTest(q.word, (q.negated ?? false) !== turned, shape, ctx) ?? null;
}
