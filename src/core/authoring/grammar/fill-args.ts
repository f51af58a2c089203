/**
 * The argument part of the grammar: each property of a step's tool, required ones first, filled
 * by the documented rules (docs/authoring.md, "Arguments"): a value an argument phrase gave it in
 * the clause ("summary as the title", read-arg-phrases.ts); an enum value the clause names; quoted
 * text, to the argument its lead-in names ("titled", "saying"); a bare word after "tag it"; the one
 * value an argument phrase said apart from the action gave that argument (Assumed); a dollar
 * amount for the money argument; the trigger event's payload field of the same name; the event's
 * subject for the first id argument when the event carries no ids of its own; the event's one
 * amount field. A required argument none of these fills is a question.
 *
 * New ways of saying a value (a step's output, a computed amount) become rules here, tried in the
 * documented order; an argument is never filled by a guess.
 */
import type { ToolDescriptor } from '../../tools/tool-descriptor.ts';
import { argWords } from '../arg-words.ts';
import type { DraftQuestion } from '../compiled-request.ts';
import { article, FILLER, wordsOf } from '../request-words.ts';
import { classField } from './class-fields.ts';
import { askedAmount, describingField, fieldOfEnum, namedAmount } from './field-for-arg.ts';
import { fitsPattern, idByPattern, subjectMisfit } from './id-by-pattern.ts';
import { impliedRead, isDateTimeArg, pendingOutput } from './implied-reads.ts';
import { usdOfDigits } from './read-amounts.ts';
import type { Clause } from './read-clauses.ts';
import { askUnknownValues } from './read-unknown-values.ts';
import { type ArgSchema, listOr, type RequestContext } from './request-context.ts';
import { STAND_INS } from './trigger-words.ts';
import { unlistedValue } from './unlisted-value.ts';
import { listedValueSaid } from './value-initials.ts';
import { askTestOrSet, askValueOfEvents } from './value-of-events.ts';

/**
 * An amount said in an action's words: "$2,500", "$2k", "$12.50"; and, for a tool that moves no
 * money, a number it is set "to" and nothing more ("set the reserve to 2500", "... to 2,500 for
 * now": never "refund it to 2 customers", "at 9", "to 2 x the claim").
 */
const AMOUNT_SAID = /\$\s?([0-9][0-9,]*(?:\.[0-9]{1,2})?k?)(?![0-9a-z]|[.,][0-9])/;
const SET_TO =
  /(?<!\b(?:up|down|close|near|limited|capped|cap|limit)\s+)\bto\s+([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?=\s*(?:$|[,;.!?)]|(?:dollars?|usd|bucks)\b|(?:for now|and|then)\b))/;

/** Arguments by the documented rules: literals said in the clause, else the trigger event's fields. */
export function fillArgs(
  c: Clause,
  tool: ToolDescriptor,
  event: string | undefined,
  ctx: RequestContext,
): Record<string, unknown> {
  const props = (tool.args.properties ?? {}) as Record<string, ArgSchema>;
  const required = new Set(Array.isArray(tool.args.required) ? (tool.args.required as string[]) : []);
  const names = Object.keys(props).sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  const args: Record<string, unknown> = {};
  const shape = ctx.events?.find((e) => e.type === event);
  const payload = shape?.payload ?? [];
  const quotedAll = [...c.text.matchAll(/"q([0-9]+)"/g)].map((m) => ({
    n: Number(m[1]),
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
  // A value an argument phrase gave an argument ("summary as the title") goes to that argument
  // only: to this step's when said with it, else to every step whose tool takes it, if the request
  // gives that argument one value. A field the trigger event does not carry is no value.
  const carried = (v: string) => {
    const f = /\{\{event\.payload\.([a-z0-9_]+)\}\}/.exec(v)?.[1];
    return f === undefined || shape === undefined || payload.includes(f);
  };
  const targeted = new Map<string, string>();
  const byLead = new Map<string, string>();
  const quoted: string[] = [];
  for (const q of quotedAll) {
    const target = ctx.argQuotes.get(q.n);
    // A field said for no argument by name ("page them with the summary"): the tool's one free text
    // argument (not an id, an enum or a field of the event), or none.
    if (target !== undefined && target.args.length === 0) {
      const texts = Object.keys(props).filter(
        (n) =>
          props[n]?.type === 'string' &&
          !/(?:^|_)id$/.test(n) &&
          !Array.isArray(props[n]?.enum) &&
          !payload.includes(n),
      );
      // Of several, an argument with a pattern (a `^#` channel, an address) is no free text.
      const free = texts.length > 1 ? texts.filter((n) => typeof props[n]?.pattern !== 'string') : texts;
      if (free.length === 1 && carried(q.text) && !targeted.has(free[0]!)) {
        targeted.set(free[0]!, q.text);
        ctx.assumptions.push(
          `${tool.name}'s ${free[0]} is read as ${argWords(q.text)}: the one text it takes, said with the action.`,
        );
      }
      continue;
    }
    if (target !== undefined) {
      const arg = target.args.find((n) => n in props && !targeted.has(n));
      if (arg !== undefined && carried(q.text)) targeted.set(arg, q.text);
      continue;
    }
    // ("email the manager 'x'" with manager in [accounts, general]: whom, not the text's argument.)
    const fits = (n: string) =>
      fitsPattern(props[n]!.pattern, q.text) &&
      (!Array.isArray(props[n]!.enum) || props[n]!.enum.includes(q.text));
    const arg = Object.keys(props).find(
      (n) => (LEADS[n] ?? [n]).includes(q.lead) && !byLead.has(n) && fits(n),
    );
    if (arg !== undefined) byLead.set(arg, q.text);
    else quoted.push(q.text);
  }
  const saidElsewhere = (n: string): string | undefined => {
    const values = new Set(
      [...ctx.argQuotes]
        .filter(([, target]) => target.args.includes(n))
        .map(([i]) => ctx.quotes[i]!)
        .filter(carried),
    );
    return values.size === 1 ? [...values][0] : undefined;
  };
  const isId = (n: string) => n === 'id' || n.endsWith('_id');
  const isMoney = (n: string) => tool.cost?.fromArg === n || /amount/.test(n);
  let subjectUsed = false;
  // Literal text: quoted text, or "as X" / "with X" / "tag it X" for a text argument named after the action.
  const bare =
    /\b(?:as|with(?: the)?(?: tag| label)?|tag(?:ged)?(?: it| them| the [a-z]+)?|label(?:led)?(?: it| them| the [a-z]+)?|mark(?:ed)?(?: it| them| the [a-z]+))\s+([a-z0-9][a-z0-9-]*)(?:\s+(?:too|as well|also))?\s*$/.exec(
      c.text.replace(/"q[0-9]+"/g, ' ').trimEnd(),
    );
  const literalFor = (n: string, s: ArgSchema): string | undefined => {
    if (s.type !== 'string' || isId(n) || Array.isArray(s.enum)) return undefined;
    if (byLead.has(n)) return byLead.get(n);
    // (Other quoted text: the first text argument given no value, whose pattern it fits if any.)
    if (
      quoted.length > 0 &&
      !payload.includes(n) &&
      saidElsewhere(n) === undefined &&
      fitsPattern(s.pattern, quoted[0]!)
    )
      return quoted.shift();
    if (
      bare &&
      !FILLER.has(bare[1]!) &&
      // ("tag everything": which ones, never the tag.)
      !STAND_INS.has(bare[1]!) &&
      !/^(?:all|any|each|every|everyone|everybody|anyone|anybody)$/.test(bare[1]!) &&
      wordsOf(n).has(bare[1]!) === false &&
      (n === 'tag' || n === 'label' || n === 'status' || n === 'reason')
    )
      return bare[1]!;
    return undefined;
  };
  const dollars = AMOUNT_SAID.exec(c.text) ?? (tool.cost === undefined ? SET_TO.exec(c.text) : null);
  const fromElsewhere: string[] = [];
  const defaulted: { n: string; field: string; question: DraftQuestion }[] = [];
  const askFor = (n: string, s: ArgSchema): DraftQuestion => ({
    about: `args: ${tool.name}.${n}`,
    question: `What should ${tool.name}'s ${n} be?${s.type === 'string' ? ' Put the text in quotes in the request.' : ''}${payload.length ? ` The ${event} event carries ${listOr(payload)}.` : ''}`,
  });
  for (const n of names) {
    const s = props[n] ?? {};
    const req = required.has(n);
    if (targeted.has(n)) {
      const v = targeted.get(n)!;
      // A number said for a numeric argument ("for 30 days" for duration_days) is that number.
      args[n] =
        (s.type === 'integer' || s.type === 'number') && /^[0-9]+(\.[0-9]+)?$/.test(v) ? Number(v) : v;
      continue;
    }
    const yesNo = s.type === 'boolean' ? ctx.yesNo.get(n) : undefined;
    if (yesNo !== undefined && yesNo !== 'both') {
      args[n] = yesNo.value;
      ctx.assumptions.push(
        `${tool.name}'s ${n} is read as ${yesNo.value}: the request says "${yesNo.said}".`,
      );
      continue;
    }
    if (Array.isArray(s.enum)) {
      const hit = listedValueSaid(s.enum as unknown[], n, c, ctx);
      if (hit !== undefined && askTestOrSet(hit as string, n, s.enum as unknown[], c.text, tool, shape, ctx))
        continue;
      if (hit !== undefined) {
        if (!askValueOfEvents(hit as string, n, c.text, tool, shape, ctx)) args[n] = hit;
        continue;
      }
      // "build it as an excel file": a value said for it that it does not take is a question.
      const other = unlistedValue(c.text, n);
      if (other !== undefined) {
        if (req)
          ctx.questions.push({
            about: `args: ${tool.name}.${n}`,
            question: `What should ${tool.name}'s ${n} be: ${listOr((s.enum as unknown[]).map(String))}? The request says "${other}", which it does not take.`,
            candidates: (s.enum as unknown[]).map(String),
          });
        continue;
      }
    }
    const lit = literalFor(n, s);
    if (lit !== undefined) {
      args[n] = lit;
      continue;
    }
    const elsewhere = saidElsewhere(n);
    if (elsewhere !== undefined) {
      args[n] =
        (s.type === 'integer' || s.type === 'number') && /^[0-9]+(\.[0-9]+)?$/.test(elsewhere)
          ? Number(elsewhere)
          : elsewhere;
      fromElsewhere.push(n);
      // (A field for the argument of its own name is the documented rule, no assumption.)
      if (elsewhere !== `{{event.payload.${n}}}`)
        ctx.assumptions.push(
          `${tool.name}'s ${n} is read as ${argWords(elsewhere)}: the request gives ${n} that one value, said apart from the action.`,
        );
      continue;
    }
    if (isMoney(n) && dollars && (s.type === 'number' || s.type === 'integer')) {
      args[n] = usdOfDigits(dollars[1]!);
      continue;
    }
    // "return the deposit": the money field the action's object names (field-for-arg.ts).
    const named = isMoney(n) ? namedAmount(c.text, payload, tool, n, event) : undefined;
    if (named?.value !== undefined) args[n] = named.value;
    if (named?.said !== undefined) ctx.assumptions.push(named.said);
    if (named?.question !== undefined) ctx.questions.push(named.question);
    if (named !== undefined) continue;
    if (payload.includes(n)) {
      // An enum argument takes the field of its name only when the values the samples show are its
      // own (an alert's "critical" is no incident's "sev1"); optional, only when they show some.
      const seen = shape?.values?.[n];
      if (Array.isArray(s.enum) && !req && !seen?.length) continue;
      const outside = Array.isArray(s.enum)
        ? (seen ?? []).filter((v) => !(s.enum as unknown[]).includes(v))
        : [];
      if (outside.length === 0) {
        args[n] = `{{event.payload.${n}}}`;
        continue;
      }
      if (req)
        ctx.questions.push({
          about: `args: ${tool.name}.${n}`,
          question: `What should ${tool.name}'s ${n} be: ${listOr((s.enum as unknown[]).map(String))}? The ${event} event's ${n} is ${listOr(outside.map((v) => JSON.stringify(v)))}, which it does not take.`,
          candidates: (s.enum as unknown[]).map(String),
        });
      continue;
    }
    // An enum argument no field is named for takes the event's one field whose sample values are
    // all its own (a removal's `reason` from a report's `category`: spam, illegal), Assumed.
    const fitting = Array.isArray(s.enum) ? fieldOfEnum(s.enum as unknown[], shape) : undefined;
    if (fitting !== undefined) {
      args[n] = `{{event.payload.${fitting}}}`;
      ctx.assumptions.push(
        `${tool.name}'s ${n} is read as the ${event} event's ${fitting}: every value its sample events show is one ${n} takes.`,
      );
      continue;
    }
    // ...or, with no sample, its one field named for a class (`reason` from `category`), Assumed.
    const classed = Array.isArray(s.enum) ? classField(n, shape, ctx) : undefined;
    if (classed !== undefined) {
      args[n] = `{{event.payload.${classed}}}`;
      ctx.assumptions.push(`${tool.name}'s ${n} is read as the ${event} event's ${classed}.`);
      continue;
    }
    // An argument a read tool of the catalog returns about the step's subject (a grant's `active`,
    // a sign-off's `manager_id`): that step's output, the read added first (implied-reads.ts).
    const implied = impliedRead(tool, n, ctx, payload);
    if (implied && 'ambiguous' in implied) {
      if (req)
        ctx.questions.push({
          about: `args: ${tool.name}.${n}`,
          question: `Which tool should read ${tool.name}'s ${n}: ${listOr(implied.ambiguous)}? Each returns it.`,
          candidates: implied.ambiguous,
        });
      continue;
    }
    if (implied) {
      args[n] = pendingOutput(implied.read, implied.field);
      continue;
    }
    // The subject is the first id argument only when the event carries no ids of its own (a
    // post.flagged event's post_id and author_id: which is a user_id?).
    const payloadIds = payload.filter(isId);
    // ...unless the argument says it is the event's own: report_id, "Expense report id", for an
    // expense.submitted event (its employee_id is someone else's).
    const noun = event?.split('.')[0] ?? '';
    const own =
      isId(n) &&
      payloadIds.length > 0 &&
      !subjectUsed &&
      noun !== '' &&
      (wordsOf(n).has(noun) || wordsOf(typeof s.description === 'string' ? s.description : '').has(noun));
    if (own) {
      subjectUsed = true;
      args[n] = '{{event.subject}}';
      ctx.assumptions.push(
        `${tool.name}'s ${n} is read as the ${event} event's subject: its description names ${article(noun)} ${noun}.`,
      );
      continue;
    }
    // ...or the one of the subject and the id fields whose sample values fit the argument's pattern.
    const byPattern =
      isId(n) && payloadIds.length > 0 ? idByPattern(n, s.pattern, shape, payloadIds) : undefined;
    if (byPattern !== undefined) {
      if (byPattern.source === 'subject') subjectUsed = true;
      args[n] =
        byPattern.source === 'subject' ? '{{event.subject}}' : `{{event.payload.${byPattern.source}}}`;
      ctx.assumptions.push(
        `${tool.name}'s ${n} is read as the ${event} event's ${byPattern.source}: ${byPattern.why}.`,
      );
      continue;
    }
    if (isId(n) && payloadIds.length > 0 && req) {
      ctx.questions.push({
        about: `args: ${tool.name}.${n}`,
        question: `Which of the ${event} event's fields is ${tool.name}'s ${n}: ${listOr(['its subject', ...payloadIds])}? None of them is called ${n}.`,
        candidates: ['subject', ...payloadIds],
      });
      continue;
    }
    if (isId(n) && !subjectUsed) {
      // Never a subject whose samples do not fit the argument's form (an order "ORD-1" as a customer_id).
      const misfit = subjectMisfit(s.pattern, shape);
      if (misfit !== undefined) {
        const question = `What should ${tool.name}'s ${n} be? The ${event} event's subject (${misfit}) does not fit its form ${s.pattern}.`;
        if (req) ctx.questions.push({ about: `args: ${tool.name}.${n}`, question });
        continue;
      }
      subjectUsed = true;
      args[n] = '{{event.subject}}';
      continue;
    }
    if (isMoney(n)) {
      // Of several money fields, the one the event's verb names (refund.requested: requested_usd, not
      // invoice_total_usd), else one named for an amount, Assumed; with more than one, asked.
      const asked = askedAmount(payload, event);
      const named = asked ? [asked] : payload.filter((p) => /amount|total|value|price|cost|sum/.test(p));
      // Else the one field of money owed ("refund whatever's due": refund_due_usd), Assumed.
      const f = named.length > 0 ? named : payload.filter((p) => /(?:^|_)(?:due|owed)(?:_|$)/.test(p));
      if (f.length === 1) {
        args[n] = `{{event.payload.${f[0]}}}`;
        if (named.length === 0 || asked)
          ctx.assumptions.push(
            `${tool.name}'s ${n} is read as the ${event} event's ${f[0]}: ${asked ? 'the amount the event says was asked' : 'its one field of money'}.`,
          );
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
    const describing = describingField(n, s, shape);
    if (describing !== undefined) {
      defaulted.push({ n, field: describing, question: askFor(n, s) });
      continue;
    }
    if (isDateTimeArg(n, s)) {
      args[n] = '{{clock.now}}';
      ctx.assumptions.push(`${tool.name}'s ${n} is read as the time the step runs ({{clock.now}}).`);
      continue;
    }
    ctx.questions.push(askFor(n, s));
  }
  // The event's own description is the text only of a step the words say something of ("open a
  // sev2", "page the primary"); of a bare "create an incident" the text is asked.
  const said = Object.entries(args).some(([n, v]) => targeted.has(n) || !String(v).startsWith('{{'));
  for (const d of defaulted) {
    if (!said) {
      ctx.questions.push(d.question);
      continue;
    }
    args[d.n] = `{{event.payload.${d.field}}}`;
    ctx.assumptions.push(
      `${tool.name}'s ${d.n} is read as the ${event} event's ${d.field}: the request gives no text.`,
    );
  }
  // Quoted text said with the action that no argument took, while arguments took values an argument
  // phrase named ("text them 'Approved' ..., use the claimant as the message"): where it goes.
  const named = [...targeted.keys(), ...fromElsewhere];
  if (quoted.length > 0 && named.length > 0)
    ctx.questions.push({
      about: `args: ${tool.name}.${named[0]}`,
      question: `The request gives ${tool.name} the text ${quoted.map((q) => JSON.stringify(q)).join(', ')}, but names other values for its arguments (${named.map((n) => `${n} = ${argWords(args[n])}`).join(', ')}). Which argument should the text be, or should it go?`,
    });
  askUnknownValues(c, tool, args, ctx);
  return args;
}
