/**
 * A value the catalog does not take, said where a destructive step's value goes: "give people
 * access to github" when `grant_access`'s `system` takes analytics, crm, billing...; "make them
 * owner" when `role` takes viewer, editor, admin. The step would otherwise take the value from the
 * event and do, for every request, what the person restricted to one system: a question, never a
 * draft. Read on the action's own clause, after "to", "on", "in" or "for", for a destructive tool
 * one of whose `enum` arguments the clause gives no value of its own.
 *
 * Pure; fill-args.ts calls it once a step's arguments are filled.
 */
import type { ToolDescriptor } from '../../tools/tool-descriptor.ts';
import { FILLER, lemmas, numberWord } from '../request-words.ts';
import { oneSlipApart } from './one-slip-apart.ts';
import type { Clause } from './read-clauses.ts';
import { knownWords, listOr, type RequestContext } from './request-context.ts';

/** Words after a preposition that say no value: who, how long, what was asked. */
const NOT_VALUES = new Set(
  `whatever whoever whichever what which who whom everyone everybody anyone anybody someone somebody
  now today tomorrow good ever later long while request requests access approval review sign-off
  signoff real`.split(/\s+/),
);

/** Questions for unknown values said in `c` where `tool`'s enum arguments take their values from the event. */
export function askUnknownValues(
  c: Clause,
  tool: ToolDescriptor,
  args: Readonly<Record<string, unknown>>,
  ctx: RequestContext,
): void {
  if (!tool.destructive) return;
  const props = (tool.args.properties ?? {}) as Record<string, { enum?: unknown }>;
  const open = Object.keys(props).filter(
    (n) => Array.isArray(props[n]?.enum) && typeof args[n] === 'string' && String(args[n]).startsWith('{{'),
  );
  if (open.length === 0) return;
  const known = knownWords(ctx);
  const text = c.text.replace(/"q[0-9]+"/g, ' ');
  for (const m of text.matchAll(/\b(?:to|on|in|for)\s+([a-z][a-z0-9-]*)\b/g)) {
    const w = m[1]!;
    if (FILLER.has(w) || NOT_VALUES.has(w) || numberWord(w) !== undefined) continue;
    if (lemmas(w).some((l) => known.has(l) || FILLER.has(l))) continue;
    if (w.length >= 5 && [...known].some((k) => k.length >= 5 && oneSlipApart(w, k))) continue;
    const values = open.flatMap((n) => (props[n]!.enum as unknown[]).map(String));
    ctx.questions.push({
      about: `args: ${tool.name}.${open[0]}`,
      question: `The request says "${w}" for ${tool.name}, which takes ${open.map((n) => n).join(' and ')} from the event; "${w}" is none of ${listOr(values)}. Which value is meant, or should the workflow do something else?`,
      candidates: values,
    });
    return;
  }
}
