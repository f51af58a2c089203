/**
 * Fields that classify the event (a report's `category`, a ticket's `type`) when no sample event
 * shows their values: the catalog's one list of classes for an argument named for a classification
 * (a removal's `reason`: spam, harassment, illegal ...) is read as what the field holds, Assumed.
 * So an argument named for one takes that field (`reason: {{event.payload.category}}`, fill-args.ts)
 * and a class said of the events ("spam reports", "anything reported as illegal") tests it
 * (`payload.category == "illegal"`, read-field-tests.ts). The assumption no sample checks is named
 * in the coverage check's question (`ctx.wholeReading`, read-coverage.ts): a class the list does not
 * have ("hate speech posts") is asked about, never dropped. Pure.
 */
import type { EventShape } from '../compiled-request.ts';
import { listOr, type RequestContext } from './request-context.ts';

/** Names of a field or an argument that classify a thing. */
export const CLASSIFIES = /^(?:category|type|kind|class|classification|topic|reason|cause)$/;

/**
 * The event's one field named for a classification whose values the catalog's one list of classes
 * holds: no sample shows its values, or every value the samples show is one of the list's.
 */
function classFieldOf(shape: EventShape | undefined, ctx: RequestContext): string | undefined {
  const fits = shape?.payload.filter((f) => CLASSIFIES.test(f)) ?? [];
  if (fits.length !== 1) return undefined;
  const list = classList(ctx);
  const seen = shape!.values?.[fits[0]!] ?? [];
  return list !== undefined && seen.every((v) => list.values.includes(v)) ? fits[0] : undefined;
}

/** The catalog's enum arguments named for a classification: their one list of values, if one. */
function classList(ctx: RequestContext): { args: string[]; values: string[] } | undefined {
  const lists = new Map<string, string[]>();
  for (const t of ctx.tools)
    for (const [name, s] of Object.entries((t.args.properties ?? {}) as Record<string, { enum?: unknown }>))
      if (CLASSIFIES.test(name) && Array.isArray(s?.enum) && s.enum.every((v) => typeof v === 'string'))
        lists.set(JSON.stringify([...(s.enum as string[])].sort()), [
          ...(lists.get(JSON.stringify([...(s.enum as string[])].sort())) ?? []),
          `${t.name}'s ${name}`,
        ]);
  if (lists.size !== 1) return undefined;
  const [key, args] = [...lists][0]!;
  return { args, values: JSON.parse(key) as string[] };
}

/**
 * The field an enum argument named for a classification reads (`reason` -> `category`): the event's
 * one classification field no sample shows, when the catalog lists one set of classes. Assumed.
 */
export function classField(
  arg: string,
  shape: EventShape | undefined,
  ctx: RequestContext,
): string | undefined {
  const field = classFieldOf(shape, ctx);
  if (!CLASSIFIES.test(arg) || field === undefined) return undefined;
  note(field, shape!, ctx);
  return field;
}

/**
 * The classes `field` of the event is read as holding (none when samples show them, or no list),
 * but a value another field's samples show: "comes back damaged" is a return's `condition`, which
 * sample returns show as damaged, not its `reason`, which only a refund's list of reasons says.
 */
export function classValues(field: string, shape: EventShape, ctx: RequestContext): string[] {
  if (classFieldOf(shape, ctx) !== field) return [];
  const shown = shownByOthers(field, shape);
  return (classList(ctx)?.values ?? []).filter((v) => !shown.includes(v));
}

/** The values the event's sample events show for fields other than `field`. */
export const shownByOthers = (field: string, shape: EventShape): string[] =>
  Object.entries(shape.values ?? {}).flatMap(([f, vs]) => (f === field ? [] : vs));

/** Lists the assumption (once), and names it for the coverage check's question. */
export function note(field: string, shape: EventShape, ctx: RequestContext): void {
  const list = classList(ctx);
  if (list === undefined) return;
  const seen = shape.values?.[field] ?? [];
  const why =
    seen.length === 0
      ? 'no sample event shows its values'
      : `the sample events show only ${listOr(seen)} of them`;
  const line = `The ${shape.type} event's ${field} is read as holding the classes ${list.args.join(' and ')} ${list.args.length > 1 ? 'take' : 'takes'} (${listOr(list.values)}): ${why}; one outside them stops the run at a step that takes it.`;
  if (ctx.assumptions.includes(line)) return;
  ctx.assumptions.push(line);
  // (Samples that show some of the classes check the reading in part: it is listed, as the others are.)
  if (seen.length === 0)
    ctx.wholeReading.push(`the ${field} is read as one of ${listOr(list.values)} though no sample shows it`);
}
