/**
 * A condition in words, for read-backs: "its refund_amount is over $50 and step lookup's tier is
 * \"gold\"". Money-like fields read their amount as dollars. Pure: a parsed condition in, text out.
 */
import { formatCents, isUsdAmount, usdToCents } from '../money.ts';
import type { Condition, Operand } from '../spec/parse-condition.ts';
import { parseStepCondition } from '../spec/step-condition.ts';

const MONEY_FIELD = /amount|usd|price|cost|total|sum|value/i;

/** `$10,000`, `$1,234.50`: an amount as a person reads it (formatCents, with thousands separators). */
export const dollars = (cents: number): string =>
  `$${formatCents(cents).replace(/^(\d+)/, (whole) => whole.replace(/\B(?=(\d{3})+$)/g, ','))}`;

/** A literal amount: its cents when it has at most 2 decimals, else as written (never rounded to a cent). */
const usd = (v: number): string => (isUsdAmount(v) ? dollars(usdToCents(v)) : `$${String(v)}`);

/** A step condition (`if:`, `when:`) in words; as written when it does not parse. */
export function stepConditionWords(src: string): string {
  try {
    return conditionWords(parseStepCondition(src));
  } catch {
    return `the condition ${JSON.stringify(src)} holds`;
  }
}

export function conditionWords(c: Condition): string {
  switch (c.kind) {
    case 'and':
    case 'or':
      return c.items
        .map((i) => (i.kind === 'and' || i.kind === 'or' ? `(${conditionWords(i)})` : conditionWords(i)))
        .join(` ${c.kind} `);
    case 'not':
      return `not (${conditionWords(c.item)})`;
    case 'truthy':
      return `${operandWords(c.operand)} is set`;
    case 'compare': {
      const ops = {
        '==': 'is',
        '!=': 'is not',
        '<': 'is under',
        '<=': 'is at most',
        '>': 'is over',
        '>=': 'is at least',
      };
      const money =
        c.left.kind === 'path' &&
        c.right.kind === 'literal' &&
        typeof c.right.value === 'number' &&
        MONEY_FIELD.test(c.left.path[c.left.path.length - 1] ?? '');
      const right =
        money && c.right.kind === 'literal' ? usd(c.right.value as number) : operandWords(c.right);
      return `${operandWords(c.left)} ${ops[c.op]} ${right}`;
    }
  }
}

function operandWords(o: Operand): string {
  if (o.kind === 'literal') return JSON.stringify(o.value);
  const p = o.path[0] === 'event' ? o.path.slice(1) : o.path;
  if (p[0] === 'steps' && p[2] === 'output')
    return p.length > 3 ? `step ${p[1]}'s ${p.slice(3).join('.')}` : `step ${p[1]}'s output`;
  if (p[0] === 'payload' && p.length > 1) return `its ${p.slice(1).join('.')}`;
  return `its ${p.join('.')}`;
}
