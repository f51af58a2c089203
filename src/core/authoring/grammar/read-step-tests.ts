/**
 * Tests said of some steps only (build-branch.ts places them):
 *
 *   - a test on what a read tool returns about the run's subject: "if the directory has them in
 *     engineering, grant it", "If they're not active in the directory tell them ... Otherwise get
 *     their manager to sign off", "if their region is emea", "if the vendor isn't approved": a
 *     yes/no the read returns (`== true`, `== false`; "inactive", "unapproved" turn it around), a
 *     field the words name, or "in X" for the read's one field that says where someone belongs
 *     (department, team, region...). The test reads `steps.<read>.output.<field>`; the read step
 *     is added first (implied-reads.ts), Assumed. The field must be the output of exactly one read
 *     tool of the catalog that reads by ids only, and no event field of the catalog by that name
 *     (an event's own field is a trigger test, read-field-tests.ts);
 *   - a money test, or a value some field of the event holds, said after other actions, with the
 *     actions it guards after it and nothing said otherwise: "tag it refund-requested, and if it's
 *     above 40 dollars tag it high-value too", "hide it, and if it's spam, also tell the author"
 *     (never after another "if" / "unless": "if it's X, A; if it IS spam, B" is two sides);
 *   - a field's value said after an earlier step: "notify the warehouse. if the reason is damaged,
 *     also send a survey", "..., and if the reason is damaged, send a survey", "notify the
 *     warehouse. send a survey if the reason is damaged": it guards only the steps said with it,
 *     never the trigger (a test said before every step still starts the workflow).
 *
 * The test's steps run to the end of the sentence, or to an else ("Otherwise ...", "; else ...",
 * "if not ..."), whose steps run to the end of its sentence. Pure; cuts what it read.
 */
import { outputsOf } from './implied-reads.ts';
import { MONEY_TEST, moneyOf, NOT_A_VALUE, type Otherwise, SUBJECT } from './read-otherwise.ts';
import { cutOut, listOr, type RequestContext, type RequestText } from './request-context.ts';

const END = String.raw`[^.;!?]*`;
/** The steps the test guards, and an else after them. */
const TAIL = String.raw`\s*,?\s*(?:then\s+)?(${END}?)(?:(?:\s*[.;,]\s*|\s+)(?:otherwise|else|if not|or else)\b,?\s*(?:just\s+)?(${END}))?(?=[.;!?]|$)`;
/** Who the test is said of: the run's subject. */
const WHO = String.raw`(?:they|he|she|the (?:employee|requester|person|user|member|customer|vendor|applicant|account|candidate))`;
/** "they're", "they are not", "he isn't", "the vendor's". */
const IS = String.raw`${WHO}\s*(?:'re|'s|\s+are|\s+is|re)?(?:\s*(?:n't|nt)|\s+not)?`;
/** "the directory says", "the lookup shows", "according to the directory": the read, named in passing. */
const SOURCE = String.raw`(?:the [a-z]+ (?:says|shows|lists|reports|has it that) (?:that )?)?`;
const IN_SOURCE = String.raw`(?:\s+(?:in|on|according to|per|in the eyes of) (?:the |their )?[a-z]+)?`;
/** Fields that say where someone belongs, for "in X". */
const GROUP =
  /^(?:department|dept|team|group|division|org|organisation|organization|unit|office|location|region|site|country|squad)$/;

/** A read tool's field, when exactly one read tool returns it: the test's operand. */
function outputField(
  field: (name: string, yesNo: boolean) => boolean,
  ctx: RequestContext,
): { read: string; field: string } | { ambiguous: string[] } | undefined {
  const hits: { read: string; field: string }[] = [];
  for (const t of ctx.tools) {
    if (t.effect !== 'read' || t.cost?.fromArg !== undefined) continue;
    const key = Array.isArray(t.args.required) ? (t.args.required as string[]) : [];
    if (key.length === 0 || !key.every((k) => k === 'id' || k.endsWith('_id'))) continue;
    const fs = outputsOf(t).fields.filter((f) => field(f.name, f.yesNo));
    if (fs.length === 1) hits.push({ read: t.name, field: fs[0]!.name });
  }
  if (hits.length > 1) return { ambiguous: hits.map((h) => `${h.read}'s ${h.field}`) };
  return hits[0];
}

/** Whether an event of the catalog carries a field by that name: then the test is the event's. */
const eventHas = (name: string, ctx: RequestContext) =>
  (ctx.events ?? []).some((e) => e.payload.includes(name));

const condition = (read: string, field: string, value: string | boolean) =>
  `steps.__implied__${read}__.output.${field} == ${JSON.stringify(value)}`;

/** The test on a read's output the text says, with the steps it guards, cut out. */
export function readOutputTest(buf: RequestText, raw: string, ctx: RequestContext): Otherwise | undefined {
  const forms: { re: RegExp; test: (m: RegExpExecArray) => string | undefined }[] = [
    {
      // "if the directory has them in engineering", "if they're in the engineering team"
      re: new RegExp(
        String.raw`\b(?:only )?if\s+(?:the [a-z]+ (?:has|shows|lists|puts|says) (?:them|him|her|the [a-z]+)(?: as)?|${IS}|${WHO} works?)\s+in (?:the )?([a-z][a-z0-9-]*)(?: (${GROUP.source.slice(4, -2)}))?${IN_SOURCE}${TAIL}`,
        'd',
      ),
      test: (m) => {
        const noun = m[2];
        if (/\bnot\b|n't|nt$/.test(m[0].slice(0, m[0].indexOf(' in ')))) return undefined;
        const f = outputField((n, yesNo) => !yesNo && (noun ? n === noun : GROUP.test(n)), ctx);
        return resolved(f, m[1]!, (read, field) => condition(read, field, rawAt(raw, m, 1)));
      },
    },
    {
      // "if their department is engineering", "if the employee's region isn't emea"
      re: new RegExp(
        String.raw`\b(?:only )?if\s+${SOURCE}(?:their|his|her|its|the [a-z]+'s) ([a-z][a-z]*(?: [a-z]+)?) (is|isn't|isnt|is not) (?:a |an |the )?([a-z0-9][a-z0-9-]*)${IN_SOURCE}${TAIL}`,
        'd',
      ),
      test: (m) => {
        const name = m[1]!.replace(/\s+/g, '_');
        if (eventHas(name, ctx)) return undefined;
        const f = outputField((n, yesNo) => !yesNo && n === name, ctx);
        const not = m[2] !== 'is';
        return resolved(f, m[3]!, (read, field) =>
          condition(read, field, rawAt(raw, m, 3)).replace(' == ', not ? ' != ' : ' == '),
        );
      },
    },
    {
      // "if they're not active in the directory", "if the vendor is unapproved", "if they're inactive"
      re: new RegExp(String.raw`\b(?:only )?if\s+${SOURCE}${IS}\s+([a-z][a-z-]*)${IN_SOURCE}${TAIL}`, 'd'),
      test: (m) => {
        const word = m[1]!;
        const negated = /\bnot\b|n't|nt\s/.test(m[0].slice(0, m.indices![1]![0] - m.index + 1));
        const bare = /^(?:in|un|non-?|not-)(.+)$/.exec(word)?.[1];
        for (const [name, flip] of [[word, false], ...(bare ? [[bare, true] as const] : [])] as const) {
          if (eventHas(name, ctx)) return undefined;
          const f = outputField((n, yesNo) => yesNo && n === name, ctx);
          if (f === undefined) continue;
          return resolved(f, name, (read, field) => condition(read, field, negated === flip));
        }
        return undefined;
      },
    },
  ];
  for (const { re, test } of forms) {
    const m = re.exec(buf.text);
    if (!m?.indices) continue;
    const tail = m.length - 2;
    const yes = m[tail]!;
    if (!/[a-z]/.test(yes.replace(/"q[0-9]+"/g, '')) && !/"q[0-9]+"/.test(yes)) continue;
    const when = test(m);
    if (when === undefined) continue;
    const elseAt = m.indices[tail + 1]?.[0];
    return impliedTest(buf, raw, ctx, {
      at: m.index,
      end: m.index + m[0].length,
      when,
      yes: m.indices[tail]!,
      elseAt,
    });
  }
  return undefined;

  function resolved(
    f: ReturnType<typeof outputField>,
    word: string,
    make: (read: string, field: string) => string,
  ): string | undefined {
    if (f === undefined) return undefined;
    if ('ambiguous' in f) {
      ctx.questions.push({
        about: 'steps.if',
        question: `Which does "${word}" test: ${listOr(f.ambiguous)}?`,
      });
      return undefined;
    }
    return make(f.read, f.field);
  }
}

/** The text as written under a group of the match. */
function rawAt(raw: string, m: RegExpExecArray, group: number): string {
  const [a, b] = m.indices![group]!;
  return raw.slice(a, b);
}

/**
 * "tag it refund-requested, and if it's above 40 dollars tag it high-value too", "hide it, and if
 * it's spam, also tell the author: ...", "pay it, and if it's from V-200 also email them ...": a
 * money test, or a word some field of the event holds (resolved once the event is known, as for a
 * choice: no field, a question), after other words of the request, the steps it guards after it,
 * nothing said otherwise.
 */
export function readStepIf(
  buf: RequestText,
  raw: string,
  eventNoun: (word: string) => boolean = () => false,
): Otherwise | undefined {
  const lead = String.raw`(?:[,;.]\s*|\s)(?:(?:and|but|also|plus)\s+)?(?:only\s+)?`;
  const named = fieldTestAfter(buf, raw, eventNoun);
  if (named) return named;
  const m = new RegExp(
    String.raw`${lead}(?:if|when)\s+${SUBJECT}${MONEY_TEST}\s*,?\s*(?:then\s+)?(${END})`,
    'd',
  ).exec(buf.text);
  // A word test only after "if it's" / "if they're" ("when it's spam" may be the trigger's).
  const w = m
    ? undefined
    : new RegExp(
        String.raw`${lead}if\s+(?:it's|its|it is|they're|theyre|they are)\s+(?:from\s+|a\s+|an\s+)?([a-z][a-z0-9-]*(?<!ed))\s*,?\s*(?:then\s+)?(${END})`,
        'd',
      ).exec(buf.text);
  const hit = m ?? w;
  if (!hit?.indices) return undefined;
  if (!/[a-z]/.test(buf.text.slice(0, hit.index))) return undefined;
  if (w && NOT_A_VALUE.test(w[1]!)) return undefined;
  // "If it's X, hide it; if it IS spam, ...": a test said before it makes two sides, not one step's.
  if (w && /\b(?:if|unless|except)\b/.test(buf.text.slice(0, hit.index))) return undefined;
  const group = m ? 5 : 2;
  const yes = hit[group]!;
  if (!/[a-z]/.test(yes.replace(/"q[0-9]+"/g, ''))) return undefined;
  // An else said after it is a choice, not this.
  if (/^\s*(?:otherwise|else|if not|or else)\b/.test(buf.text.slice(hit.indices[group]![1] + 1)))
    return undefined;
  const [yesAt, yesEnd] = hit.indices[group]!;
  const out: Otherwise = {
    at: hit.index,
    end: yesEnd,
    order: 'first',
    test: m ? moneyOf(m, 1) : { kind: 'word', word: w![1]! },
    yes: { text: buf.text.slice(yesAt, yesEnd), raw: raw.slice(yesAt, yesEnd) },
    text: '',
    raw: '',
    stepIf: true,
  };
  cutOut(buf, { index: hit.index, 0: buf.text.slice(hit.index, yesEnd) });
  return out;
}

/** "the reason is", "the order's carrier is": the words a test is said of. */
const OF = String.raw`(?:the|its|their)\s+([a-z][a-z_]*(?:\s+(?!(?:is|was|are|were)\b)[a-z][a-z_]*)?)\s+(?:is|was|are|were)\s+(?:a\s+|an\s+)?([a-z][a-z0-9-]*)`;

/**
 * A field's value said after an earlier sentence's or clause's step, guarding only the steps said
 * with it: "notify the warehouse. if the reason is damaged, also send a survey", "..., and if the
 * reason is damaged, send a survey" (its steps after it, to the end of the sentence), "notify the
 * warehouse. send a survey if the reason is damaged" (one action before it, its sentence's only
 * one, the test ending the sentence). The field is resolved once the event is known (a word test
 * `of` the words, as for a choice); the words naming the event ("if the order is damaged") name no
 * field. Nothing said otherwise after it (that is a choice), no test said before it.
 */
function fieldTestAfter(
  buf: RequestText,
  raw: string,
  eventNoun: (word: string) => boolean,
): Otherwise | undefined {
  const t = buf.text;
  const test = (of: string, word: string) => {
    const words = of.split(/\s+/);
    return {
      kind: 'word' as const,
      word,
      ...(words.some(eventNoun) ? {} : { of: words.join('_') }),
    };
  };
  // The value ends at a comma or "then" ("if the reason is damaged item, limit $50" is no step's test).
  const first = new RegExp(
    String.raw`(?:[,;.]\s*|\s)(?:(?:and|but|also|plus)\s+)?if\s+${OF}\s*(?:,\s*(?:then\s+)?|\s+then\s+)(${END})`,
    'd',
  ).exec(t);
  if (first?.indices && !NOT_A_VALUE.test(first[2]!)) {
    const [yesAt, yesEnd] = first.indices[3]!;
    const before = t.slice(0, first.index);
    if (
      /[a-z]/.test(before) &&
      !/\b(?:if|unless|except)\b/.test(before) &&
      /[a-z]/.test(first[3]!.replace(/"q[0-9]+"/g, '')) &&
      !/^\s*(?:otherwise|else|if not|or else)\b/.test(t.slice(yesEnd + 1))
    ) {
      cutOut(buf, { index: first.index, 0: t.slice(first.index, yesEnd) });
      return {
        at: first.index,
        end: yesEnd,
        order: 'first',
        test: test(first[1]!, first[2]!),
        yes: { text: t.slice(yesAt, yesEnd), raw: raw.slice(yesAt, yesEnd) },
        text: '',
        raw: '',
        stepIf: true,
      };
    }
  }
  // "send a survey if the reason is damaged": the test ends its sentence, an earlier one says a step.
  const after = new RegExp(
    String.raw`([.;!?]\s*)([^.;!?]*?[a-z][^.;!?]*?),?\s+(?:only\s+)?if\s+${OF}\s*(?=[.;!?]|$)`,
    'd',
  ).exec(t);
  if (!after?.indices || NOT_A_VALUE.test(after[4]!)) return undefined;
  const said = after[2]!;
  // One action in its sentence: "A and B if X" may mean both.
  if (/\b(?:and|then|also|plus|if|unless|except|when)\b|,/.test(said)) return undefined;
  if (!/[a-z]/.test(t.slice(0, after.index)) || /\b(?:if|unless|except)\b/.test(t.slice(0, after.index)))
    return undefined;
  if (/^\s*[.;!?]?\s*(?:otherwise|else|if not|or else)\b/.test(t.slice(after.index + after[0].length)))
    return undefined;
  const at = after.indices[2]![1];
  const end = after.index + after[0].length;
  cutOut(buf, { index: at, 0: t.slice(at, end) });
  return { at, end, order: 'after', test: test(after[3]!, after[4]!), text: '', raw: '', stepIf: true };
}

/**
 * A test on what an implied read returns (`when` names `steps.__implied__<read>__.output.<field>`),
 * said at `at`, its yes-text at `yes` and its else from `elseAt` to `end` (none: the yes-step's own
 * `if`): the reading as an else-clause, listed under Assumed and cut out of the request. With no
 * `yes` ("book a slot if it clears"), the test runs to `end` and guards the action said just before
 * it (order `after`), as that step's own `if`.
 */
export function impliedTest(
  buf: RequestText,
  raw: string,
  ctx: RequestContext,
  o: {
    at: number;
    end: number;
    when: string;
    yes?: readonly [number, number];
    elseAt: number | undefined;
    /** The test's words, when they are not the text before `yes` ("pay matched invoices": "matched invoices"). */
    said?: string;
  },
): Otherwise {
  const { at, end, when, elseAt } = o;
  const [yesAt, yesEnd] = o.yes ?? [end, end];
  const said = o.said ?? raw.slice(at, yesAt).trim().replace(/,$/, '');
  const out: Otherwise = o.yes
    ? {
        at,
        end,
        order: 'first',
        test: { kind: 'condition', when, said: o.said ?? raw.slice(at, yesAt).trim() },
        yes: { text: buf.text.slice(yesAt, yesEnd), raw: raw.slice(yesAt, yesEnd) },
        text: elseAt === undefined ? '' : buf.text.slice(elseAt, end),
        raw: elseAt === undefined ? '' : raw.slice(elseAt, end),
        ...(elseAt === undefined ? { stepIf: true } : {}),
      }
    : { at, end, order: 'after', test: { kind: 'condition', when, said }, text: '', raw: '', stepIf: true };
  ctx.assumptions.push(
    `"${said}" is read as a test on what ${/__implied__(.+?)__/.exec(when)![1]} reads: ${when.replace(/steps\.__implied__.+?__\.output\./, '')}.`,
  );
  cutOut(buf, { index: at, 0: buf.text.slice(at, end) });
  return out;
}
