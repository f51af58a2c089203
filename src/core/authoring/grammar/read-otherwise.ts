/**
 * The branch part of the grammar: "refund it if it's under $20, otherwise reply ..." is a choice
 * (`choose:` with one branch and an `else`, docs/flow.md): the action just before the amount test
 * runs when it holds, the actions after "otherwise" / "else" / "if not" when it does not. The test
 * reads the trigger event's one amount field. Cuts the test and the else part out of the text; the
 * action before it stays, and compileRequest puts it in the branch.
 */
import { cutOut, type RequestText } from './request-context.ts';

/** A money test with an else: where the test began, its operator and amount, and the else text. */
export interface Otherwise {
  /** Position in the text where the test began: the clause just before it is the branch's. */
  readonly at: number;
  readonly op: '<' | '<=' | '>' | '>=';
  readonly usd: number;
  /** The else part, lowercased and as written (same positions), to split into clauses. */
  readonly text: string;
  readonly raw: string;
}

const OPS: Record<string, Otherwise['op']> = {
  under: '<',
  below: '<',
  'less than': '<',
  'at most': '<=',
  over: '>',
  above: '>',
  'more than': '>',
  'at least': '>=',
};

export function readOtherwise(buf: RequestText, raw: string): Otherwise | undefined {
  const m =
    /(?:,\s*)?\b(?:(?:only )?(?:if|when) (?:it's |its |it is |they're |they are |the amount is |the total is )?)?(under|below|less than|at most|over|above|more than|at least)\s+\$([0-9]+(?:\.[0-9]{1,2})?)\s*(?:,\s*|;\s*|\.\s*)?(?:otherwise|else|if not|or else)\b,?\s*(?:just\s+)?([^.;!?]*)/.exec(
      buf.text,
    );
  if (!m) return undefined;
  const elseAt = m.index + m[0].length - m[3]!.length;
  const out: Otherwise = {
    at: m.index,
    op: OPS[m[1]!]!,
    usd: Number(m[2]),
    text: buf.text.slice(elseAt, m.index + m[0].length),
    raw: raw.slice(elseAt, m.index + m[0].length),
  };
  cutOut(buf, m);
  return out;
}
