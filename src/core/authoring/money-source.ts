/**
 * Which amount a draft moves, against the amount the words name: a safety check of every draft,
 * whatever compiled it. A request names an amount by a field of the catalog ("the order total" is a
 * read tool's `total_usd`, "the amount" the event's `amount_usd`); a draft that moves money from
 * another field drops those words, though each of them is a word of the catalog (so no check of
 * unread words notices it). Two questions:
 *
 * - the draft's amount is a field the words name only after a negation ("not just the amount on
 *   the ticket", "instead of the amount", "rather than the amount"): the opposite of the words;
 * - the words name an amount field the draft reads nowhere (no argument, no condition) while its
 *   amount is another field: the named amount was dropped;
 * - the words say whose amount to move ("pay the PO amount"), a thing of the catalog the draft's
 *   amount is not of: the invoice.received event's amount_usd is the invoice's, and no field holds
 *   the purchase order's.
 *
 * A fixed amount in the draft is the stated amount's business (draft-safety.ts), not this. Pure.
 */
import { type FlowStep, toolSteps } from '../spec/flow-steps.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import type { DraftCatalog } from './compiled-request.ts';
import { lemmas, vocabularyOf, wordsOf } from './request-words.ts';

/** Words of a field's name that only say its unit: "total_usd" is named "total". */
const UNIT = new Set(['usd', 'cents', 'cent', 'dollars', 'eur', 'gbp', 'in']);
/** Words in a field's name that say it holds an amount of money. */
const AMOUNT_NAME = /(?:^|_)(?:usd|cents|amount|total|price|cost|paid|balance|fee|subtotal)(?:_|$)/;
/** A negation just before a named field: "not just the", "instead of the", "rather than his". */
const NEGATED_BEFORE = /(?:\b(?:not|never|instead of|rather than)|n't)\s+(?:[a-z'$-]+\s+){0,3}$/;

interface AmountField {
  readonly field: string;
  /** The field's name as words ("order total"), its unit left out. */
  readonly phrase: string;
}

/** The money amount fields of the catalog: the events' and the numbers tools return. */
function amountFields(catalog: DraftCatalog): AmountField[] {
  const names = new Set<string>();
  for (const e of catalog.events ?? []) for (const f of e.payload) if (AMOUNT_NAME.test(f)) names.add(f);
  for (const t of catalog.tools) {
    const props =
      (t.result as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties ?? {};
    for (const [f, s] of Object.entries(props))
      if ((s?.type === 'number' || s?.type === 'integer') && AMOUNT_NAME.test(f)) names.add(f);
  }
  const out: AmountField[] = [];
  for (const field of names) {
    const words = field.split('_').filter((w) => w && !UNIT.has(w));
    if (words.length > 0) out.push({ field, phrase: words.join(' ') });
  }
  return out;
}

/** "the PO amount", "their deposit total": whose amount the words say (group 1). */
const WHOSE_AMOUNT =
  /\b(?:the|their|its|his|her|this|that|each)\s+([a-z]+)\s+(?:amount|total|sum|value|price|cost)\b/g;
/** Words before "amount" that say which part or state of it, not whose it is. */
const NOT_WHOSE = new Set(
  'full whole same entire exact original requested remaining outstanding approved invoiced claimed due total usd dollar right correct new old final agreed'.split(
    ' ',
  ),
);

/**
 * Whose amount a value is: the trigger event's, or what the step that read it returned, in words
 * (`said`) and as the words of that event or read (`words`: its type or tool, and the field).
 */
function ownerOf(value: string, spec: WorkflowSpec): { said: string; words: Set<string> } {
  const step = /^\{\{\s*steps\.([A-Za-z0-9_-]+)\.output\.([A-Za-z0-9_]+)/.exec(value);
  if (step) {
    const tool = toolSteps(spec.steps).find((s) => s.name === step[1])?.tool;
    return { said: `what ${tool ?? step[1]} returned`, words: wordsOf(`${tool ?? ''} ${step[2]}`) };
  }
  const events = spec.triggers.map((t) => t.event);
  return {
    said: `the ${events.join(' or ')} event's`,
    words: wordsOf(`${events.join(' ')} ${fieldOf(value) ?? ''}`),
  };
}

/** Each place the request names `phrase`, and whether a negation comes just before it. */
function mentions(lower: string, phrase: string): boolean[] {
  const re = new RegExp(`\\b${phrase.replace(/ /g, '[ _-]')}s?\\b`, 'g');
  return [...lower.matchAll(re)].map((m) => NEGATED_BEFORE.test(lower.slice(0, m.index)));
}

/** The field a `{{event.payload.f}}` / `{{steps.s.output.f}}` value reads, or undefined. */
function fieldOf(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  return /^\{\{\s*(?:event\.payload|steps\.[A-Za-z0-9_-]+\.output)\.([A-Za-z0-9_]+)\s*\}\}$/.exec(v)?.[1];
}

/** Every field name the draft reads anywhere: templates in arguments, conditions. */
function fieldsRead(spec: WorkflowSpec): string {
  return JSON.stringify(spec.triggers) + JSON.stringify(spec.steps satisfies readonly FlowStep[]);
}

/** Questions for a draft whose money amount is not the amount its words name. */
export function moneySourceQuestions(spec: WorkflowSpec, request: string, catalog: DraftCatalog): string[] {
  const byName = new Map(catalog.tools.map((t) => [t.name, t]));
  const fields = amountFields(catalog);
  if (fields.length === 0) return [];
  const lower = request.toLowerCase().replace(/[\u2018\u2019]/g, "'");
  const read = fieldsRead(spec);
  const out: string[] = [];
  const known = vocabularyOf(catalog.tools, catalog.events);

  for (const step of toolSteps(spec.steps)) {
    const arg = byName.get(step.tool)?.cost?.fromArg;
    if (arg === undefined) continue;
    const value = step.args[arg];
    const source = fieldOf(value);
    if (source === undefined) continue;
    const shown = `${step.tool}'s ${arg} is ${JSON.stringify(value)}`;
    const own = fields.find((f) => f.field === source);
    const ownSaid = own ? mentions(lower, own.phrase) : [];
    if (ownSaid.length > 0 && ownSaid.every((negated) => negated)) {
      out.push(`The request says not to use "${own!.phrase}", but ${shown}. Which amount should it move?`);
      continue;
    }
    const owner = ownerOf(String(value), spec);
    for (const m of lower.matchAll(WHOSE_AMOUNT)) {
      const whose = m[1]!;
      const forms = lemmas(whose);
      if (NOT_WHOSE.has(whose) || !forms.some((l) => known.has(l)) || forms.some((l) => owner.words.has(l)))
        continue;
      const said = request.slice(m.index, m.index + m[0].length);
      const whoseSaid = said.split(/\s+/)[1];
      out.push(
        `The request says "${said}", but ${shown}: ${owner.said}, not the ${whoseSaid}'s. Which amount should it move?`,
      );
    }
    for (const f of fields) {
      if (f.field === source || f.phrase === own?.phrase) continue;
      // The field's own name in the draft: read somewhere (a condition, another argument).
      if (new RegExp(`\\b${f.field}\\b`).test(read)) continue;
      if (!mentions(lower, f.phrase).some((negated) => !negated)) continue;
      out.push(
        `The request names "${f.phrase}" (${f.field}), but ${shown} and nothing in the draft reads ${f.field}. Which amount should it move?`,
      );
    }
  }
  return out;
}
