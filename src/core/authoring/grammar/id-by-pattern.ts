/**
 * An id argument no word and no field name gives, told apart by its `pattern`: of the event's
 * subject and its id fields, the one whose sample values fit the pattern (a `ticket_id` of
 * `^T-[0-9]+$` is the subject "T-2001", not the order_id "A-1001"); and never the subject when its
 * samples fit no such pattern (`subjectMisfit`: an order "ORD-1" is no customer_id). Pure.
 */
import type { EventShape } from '../compiled-request.ts';

export interface IdByPattern {
  /** `subject`, or the payload field. */
  readonly source: string;
  /** Why, for the read-back's Assumed line. */
  readonly why: string;
}

type Verdict = 'fits' | 'not' | 'unknown';

function verdict(re: RegExp, samples: readonly string[] | undefined): Verdict {
  if (samples === undefined || samples.length === 0) return 'unknown';
  return samples.every((v) => re.test(v)) ? 'fits' : 'not';
}

/**
 * The one candidate whose samples fit `pattern` while every other's samples do not; or the subject,
 * unseen, when every id field's samples do not (the subject is the event's own id). Undefined when
 * the samples do not tell, or the pattern is not one this engine compiles.
 */
export function idByPattern(
  arg: string,
  pattern: unknown,
  shape: EventShape | undefined,
  ids: readonly string[],
): IdByPattern | undefined {
  if (typeof pattern !== 'string' || shape === undefined) return undefined;
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
  const candidates = [
    { source: 'subject', seen: shape.subjects, v: verdict(re, shape.subjects) },
    ...ids.map((f) => ({ source: f, seen: shape.values?.[f], v: verdict(re, shape.values?.[f]) })),
  ];
  const fitting = candidates.filter((c) => c.v === 'fits');
  const unknown = candidates.filter((c) => c.v === 'unknown');
  const others = candidates.filter((c) => c.v === 'not').map((c) => `${c.source}'s (${c.seen!.join(', ')})`);
  const ruledOut = others.length > 0 ? `, and ${others.join(' and ')} do not` : '';
  const [only] = fitting;
  if (fitting.length === 1 && unknown.length === 0 && only !== undefined)
    return {
      source: only.source,
      why: `its sample events' ${only.source} (${only.seen!.join(', ')}) fits ${arg}'s pattern ${pattern}${ruledOut}`,
    };
  if (fitting.length === 0 && unknown.length === 1 && unknown[0]!.source === 'subject')
    return { source: 'subject', why: `no id field's samples fit ${arg}'s pattern ${pattern}${ruledOut}` };
  return undefined;
}

/** Whether literal `text` fits an argument's `pattern`, when it has one this engine compiles. */
export function fitsPattern(pattern: unknown, text: string): boolean {
  if (typeof pattern !== 'string') return true;
  try {
    return new RegExp(pattern, 'u').test(text);
  } catch {
    return true;
  }
}

/** The event's sample subjects, as said, when there are some and none fits `pattern`. */
export function subjectMisfit(pattern: unknown, shape: EventShape | undefined): string | undefined {
  const seen = shape?.subjects ?? [];
  if (typeof pattern !== 'string' || seen.length === 0 || seen.some((v) => fitsPattern(pattern, v)))
    return undefined;
  return seen.join(', ');
}
