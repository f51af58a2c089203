import type { Clause } from './read-clauses.ts';
import type { RequestContext } from './request-context.ts';

/**
 * The value of a listed argument (`enum`) a clause says: by its words ("the front office manager":
 * front_office), or by its initials (below).
 */
export function listedValueSaid(
  values: readonly unknown[],
  arg: string,
  c: Clause,
  ctx: RequestContext,
): string | undefined {
  const named = values.find(
    (v) => typeof v === 'string' && new RegExp(`\\b${v.replace(/[^a-z0-9]/gi, '.')}\\b`, 'i').test(c.text),
  );
  return (named as string | undefined) ?? initialsOf(values, arg, c.raw, ctx);
}

/**
 * "email the FOM", "tell the GM": a value said by its initials in capitals (as typed: "as" is a
 * word, never auth_service), with the argument's name ("FOM": front_office manager) or without it
 * ("AP": accounts_payable), when exactly one value of the list has them. Listed under Assumed.
 */
function initialsOf(
  values: readonly unknown[],
  arg: string,
  raw: string,
  ctx: RequestContext,
): string | undefined {
  const initials = (words: string[]) => words.map((w) => w[0]).join('');
  const byInitials = new Map<string, string[]>();
  for (const v of values) {
    if (typeof v !== 'string') continue;
    const words = v
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
    for (const i of new Set([
      initials([...words, ...arg.split('_')]),
      words.length > 1 ? initials(words) : '',
    ]))
      if (i.length >= 2) byInitials.set(i, [...(byInitials.get(i) ?? []), v]);
  }
  for (const m of raw.matchAll(/(?<![A-Za-z0-9_"'-])([A-Z]{2,4})(?![A-Za-z0-9_"'-])/g)) {
    const hits = byInitials.get(m[1]!.toLowerCase());
    if (hits?.length !== 1) continue;
    ctx.assumptions.push(
      `"${m[1]!.toUpperCase()}" is read as ${arg} ${hits[0]}: the initials of the one value it lists.`,
    );
    return hits[0];
  }
  return undefined;
}
