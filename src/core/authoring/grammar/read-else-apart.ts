/**
 * An else said apart from its test: the test is said as the workflow's filter ("refund req over
 * 300 -> tag escalate ... . otherwise refund it", "for gold customers refund straight away, for
 * everyone else tag it needs-approval instead", "access requested for 2 weeks or more? ... anything
 * shorter, grant it straight away instead", "for pro customers: prioritise the urgent ones, tier 2
 * within an hour, everything else tier 1 within eight hours"). The else runs to the end of its
 * sentence ("instead" read as its own word); what it answers is
 *
 *   - "anything shorter" / "anything longer": the one bound on a duration said;
 *   - "everyone else", "anyone else", "all other customers": the one customer group said, or with
 *     none, the one field test said ("V-100 invoices get paid, everyone else ...": other vendors);
 *   - "anything above that", "anything bigger", "anything smaller": the one bound said before it,
 *     on its other side (the same side is asked), never a field test;
 *   - "otherwise", "everything else", "the rest": "the X ones" said in its sentence ("prioritise
 *     the urgent ones"), else the one test said before it (a money bound, a duration, a customer
 *     group, a field test, or, with none of those, the one upper bound said of which amounts:
 *     "refund anything under 20 bucks, for the rest reply ..."); several: a question, never a guess.
 *
 * The test then decides a choice (build-branch.ts) between the actions said before the else and
 * the else's, and is no longer the trigger's. Pure; cuts the else out of the text as soon as it is
 * read, so no other reader takes its words.
 */
import { formatUsd } from '../../money.ts';
import type { EventShape } from '../compiled-request.ts';
import { isActionVerb } from '../request-words.ts';
import type { MoneyBounds } from './read-amounts.ts';
import { triggerConditions } from './read-conditions.ts';
import type { NumberTest } from './read-number-tests.ts';
import type { Otherwise } from './read-otherwise.ts';
import { cutOut, type RequestContext, type RequestText } from './request-context.ts';

export interface ElseApart {
  /** Where the else's marker began, and where its sentence ended. */
  readonly at: number;
  readonly end: number;
  /** What the marker says it answers. */
  readonly kind: 'any' | 'duration' | 'people' | 'bound';
  /** "the urgent ones" said in the else's sentence, before it: the test's word. */
  readonly ones?: { readonly word: string; readonly at: number };
  readonly text: string;
  readonly raw: string;
  /** The marker as written, for questions. */
  readonly said: string;
  /** A comparison's side ("anything above that": above), for `kind` bound. */
  readonly side?: 'above' | 'below';
}

/**
 * "Never approve alcohol. Everything else: approve and reimburse": a field test the filter made of
 * a forbidden action (`category != "alcohol"`) is what the else is the rest of, so the choice's
 * own branch is the forbidden value's (`category == "alcohol"`, where the forbidden action is not
 * done), never the other way round (that approved and paid alcohol alone).
 */
function ofForbidden(when: string, before: string, ctx: RequestContext): string {
  const m = /^payload\.([a-z0-9_]+) != ("[^"]*")$/.exec(when);
  const forbidden = /\b(?:never|don'?t|do not|dont)\s+(?:ever\s+)?([a-z]+)/.exec(before);
  // (An action verb, or the verb a tool of the catalog is named for: "never reship for usps".)
  const acts = (w: string) => isActionVerb(w) || ctx.tools.some((t) => t.name.split('_')[0] === w);
  return m && forbidden && acts(forbidden[1]!) ? `payload.${m[1]} == ${m[2]}` : when;
}

/** The sides a comparison says: "anything bigger", "anything below that". */
const ABOVE = 'above|over|bigger|larger|higher|more';
const BELOW = 'under|below|smaller|lower|less';
const PEOPLE = String.raw`(?:everyone|everybody|anyone|anybody|all (?:the )?other (?:customers|users|people|clients|members|accounts)|other (?:customers|users|people|clients|members|accounts)|the rest of (?:the|our) (?:customers|users|clients|members|accounts))`;
const MARKER = new RegExp(
  String.raw`(?:^|[.;!?,]\s*|\s+-\s+|(?<="q[0-9]+")\s+)((?:for\s+)?${PEOPLE}\s+else|(?:for\s+)?${PEOPLE}(?=\s*[,:]|\s+(?:just\s+)?[a-z])|(?:anything|everything|any request|any other request|all other requests|requests?|ones?)\s+(?:shorter|longer)(?:\s+than that)?|(?:for\s+)?(?:everything|anything)\s+else|(?:everything|anything|any(?:one)?|ones?)\s+(?:(?:${ABOVE}|${BELOW})(?:\s+than)?\s+(?:that|this)|bigger|larger|smaller|higher|lower)|(?:for\s+)?the rest|otherwise|else|if not)\b\s*[,:]?\s*(?:->\s*|→\s*)?(?:just\s+)?([^.;!?]*?)(?:\s+instead)?\s*(?=[.;!?]|$)`,
  'd',
);

/** A marker that compares with a bound said before it ("anything above that", "anything bigger"). */
const COMPARED = new RegExp(String.raw`^(?:everything|anything|any(?:one)?|ones?)\s+(?:${ABOVE}|${BELOW})\b`);

/** The else said apart from its test, cut out. */
export function readElseApart(buf: RequestText, raw: string): ElseApart | undefined {
  const m = MARKER.exec(buf.text);
  if (!m?.indices) return undefined;
  const body = m[2]!;
  if (!/[a-z]/.test(body.replace(/"q[0-9]+"/g, '')) && !/"q[0-9]+"/.test(body)) return undefined;
  // A clause before it in the request: an else answers something said first.
  const at = m.indices[1]![0];
  if (!/[a-z]/.test(buf.text.slice(0, at))) return undefined;
  const marker = m[1]!;
  const kind = /shorter|longer/.test(marker)
    ? 'duration'
    : new RegExp(String.raw`^(?:for\s+)?${PEOPLE}`).test(marker)
      ? 'people'
      : COMPARED.test(marker)
        ? 'bound'
        : 'any';
  const [bodyAt, bodyEnd] = m.indices[2]!;
  const end = m.index + m[0].length;
  // "prioritise the urgent ones, ...": the test said of its actions, in the else's sentence.
  const sentence = buf.text.slice(0, at).search(/[^.;!?]*$/);
  const ones =
    /\b(?:prioriti[sz]e|handle|take|treat|for)\s+(?:the\s+|all\s+(?:the\s+)?)?([a-z][a-z0-9-]*)\s+ones\b/.exec(
      buf.text.slice(sentence, at),
    );
  const out: ElseApart = {
    at,
    end,
    kind,
    ...(kind === 'bound'
      ? { side: new RegExp(String.raw`\b(?:${BELOW})\b`).test(marker) ? 'below' : 'above' }
      : {}),
    ...(ones ? { ones: { word: ones[1]!, at: sentence + ones.index } } : {}),
    text: buf.text.slice(bodyAt, bodyEnd),
    raw: raw.slice(bodyAt, bodyEnd),
    said: raw.slice(at, m.indices[1]![1]).trim(),
  };
  cutOut(buf, { index: at, 0: buf.text.slice(at, end) });
  if (ones) cutOut(buf, { index: sentence + ones.index, 0: ones[0] });
  return out;
}

/** The tests the readers took out of the text as the trigger's, which an else may answer. */
export interface SaidTests {
  readonly numberTests: NumberTest[];
  readonly money: MoneyBounds;
  audience: readonly string[] | undefined;
  readonly fieldTests: string[];
}

/**
 * The choice an else said apart makes: its test taken from the trigger's (`said` is changed: the
 * test is no longer the trigger's), the actions before the else its branch. Undefined, and a
 * question, when the else answers no one test.
 */
export function elseChoice(
  e: ElseApart,
  said: SaidTests,
  buf: RequestText,
  raw: string,
  event: string | undefined,
  shape: EventShape | undefined,
  ctx: RequestContext,
): Otherwise | undefined {
  const choice = (test: Otherwise['test']): Otherwise => ({
    at: 0,
    end: e.end,
    order: 'first',
    test,
    yes: { text: buf.text.slice(0, e.at), raw: raw.slice(0, e.at) },
    text: e.text,
    raw: e.raw,
  });
  const ask = (why: string) => {
    ctx.questions.push({
      about: 'steps.choose',
      question: `What does "${e.said}" answer? ${why}`,
    });
    return undefined;
  };
  if (e.kind === 'duration') {
    if (said.numberTests.length !== 1) return ask('Say the bound on the duration it is the else of.');
    return choice({ kind: 'duration', test: said.numberTests.splice(0, 1)[0]! });
  }
  const audience = () => {
    const group = said.audience;
    said.audience = undefined;
    const [when] = triggerConditions(
      event,
      { currency: undefined, audience: group, lowerBounds: [] },
      [],
      ctx,
    );
    return when === undefined ? undefined : choice({ kind: 'condition', when, said: group!.join(' or ') });
  };
  if (e.kind === 'people') {
    // "V-100 invoices get paid, everyone else gets an email": no customer group, one field test.
    const only =
      said.audience === undefined &&
      said.fieldTests.length === 1 &&
      said.numberTests.length === 0 &&
      said.money.lowerBounds.length === 0;
    if (only) {
      const when = ofForbidden(said.fieldTests.splice(0, 1)[0]!, raw.slice(0, e.at).toLowerCase(), ctx);
      ctx.assumptions.push(`"${e.said}" is read as the else of the one test said before it: ${when}.`);
      return choice({ kind: 'condition', when, said: when });
    }
    if (said.audience === undefined)
      return ask('Say the customers it is the else of ("for gold customers ...").');
    return audience();
  }
  // "anything above that": the one bound said before it, whatever else was said (never a field test).
  // Its side must be the other side of the bound ("up to $50 ..., anything bigger"); the same side
  // ("over $500 ..., anything bigger") says nothing the bound does not: asked.
  if (e.kind === 'bound') {
    const above = e.side === 'above';
    const same = (what: string) => ask(`It is on the same side of ${what} as the steps before it.`);
    const [upper] = said.money.filters;
    if (upper !== undefined && said.money.filters.length === 1 && said.money.lowerBounds.length === 0) {
      if (!above) return same(`$${formatUsd(upper.usd)}`);
      ctx.assumptions.push(
        `"${e.said}" is read as the else of the bound said before it: ${upper.op === '<' ? 'under' : 'at most'} $${formatUsd(upper.usd)}.`,
      );
      return choice({ kind: 'money', op: upper.op, usd: upper.usd });
    }
    const [lower] = said.money.lowerBounds;
    if (
      lower !== undefined &&
      said.money.lowerBounds.length === 1 &&
      said.money.filters.length + said.numberTests.length === 0
    ) {
      if (above) return same(`$${formatUsd(lower.usd)}`);
      said.money.lowerBounds.splice(0, 1);
      return choice({ kind: 'money', op: lower.op, usd: lower.usd });
    }
    const [t] = said.numberTests;
    if (
      t !== undefined &&
      said.numberTests.length === 1 &&
      said.money.filters.length + said.money.lowerBounds.length === 0
    ) {
      if (above !== (t.op === '<' || t.op === '<=')) return same(`"${t.said}"`);
      said.numberTests.splice(0, 1);
      return choice({ kind: 'duration', test: t });
    }
    return ask('Say the one bound it is the else of ("if it is over $300 ..., otherwise ...").');
  }
  if (e.ones) {
    if (!shape) return undefined;
    return choice({ kind: 'word', word: e.ones.word });
  }
  const count =
    said.numberTests.length +
    said.money.lowerBounds.length +
    (said.audience === undefined ? 0 : 1) +
    said.fieldTests.length;
  // "refund anything under 20 bucks, for the rest reply ...": the one bound said of the things
  // acted on ("anything under 20", "refunds under 20", "refunds of $30 or less"; it stays the money
  // branch's cap too), never one said of another quantity ("if the total they paid is under $20": not the event's amount).
  const [upper] = said.money.filters;
  const ofThem =
    upper !== undefined &&
    /\b(?:anything|anyone|everything|everyone|all|any|it|them|those|ones|(?!(?:is|was|has|its|this|does)\b)[a-z]+s)(?:\s+(?:of|for|worth))?\s+$/i.test(
      raw.slice(0, upper.at),
    );
  if (count === 0 && ofThem && said.money.filters.length === 1) {
    ctx.assumptions.push(
      `"${e.said}" is read as the else of the one bound said before it: ${upper.op === '<' ? 'under' : 'at most'} $${formatUsd(upper.usd)}.`,
    );
    return choice({ kind: 'money', op: upper.op, usd: upper.usd });
  }
  if (count !== 1)
    return ask(
      count === 0
        ? 'No test is said before it; say the test ("if it is over $300 ..., otherwise ...").'
        : 'Several tests are said before it; say which one it answers with "if ..., otherwise ...".',
    );
  if (said.numberTests.length === 1)
    return choice({ kind: 'duration', test: said.numberTests.splice(0, 1)[0]! });
  if (said.money.lowerBounds.length === 1) {
    const b = said.money.lowerBounds.splice(0, 1)[0]!;
    return choice({ kind: 'money', op: b.op, usd: b.usd });
  }
  if (said.audience !== undefined) return audience();
  const when = ofForbidden(said.fieldTests.splice(0, 1)[0]!, raw.slice(0, e.at).toLowerCase(), ctx);
  return choice({ kind: 'condition', when, said: when });
}
