/**
 * Money said the way people say it beyond digits and number words (read-spelling.ts reads those):
 * "half a grand" ($500), "a grand and a half" / "one and a half grand" ($1,500); and a bound said
 * again right after it ("up to 9.99, nothing more", "max $40 and no more", "$200 tops", "under
 * $50, not a cent more"): the same bound, never an action or a second amount. Each reading is
 * listed under "Assumed". Length-preserving like every reader: positions in the text stay put.
 */
import { formatUsd } from '../../money.ts';
import type { RequestContext, RequestText } from './request-context.ts';

const FRACTIONS: readonly [RegExp, number][] = [
  [/\bhalf (?:a|of a|of one|one) (?:grand|thousand(?: dollars| bucks)?)\b/g, 500],
  [/\b(?:a|one) (?:grand|thousand) and a half\b/g, 1500],
  [/\b(?:one|1) and a half (?:grand|thousand(?: dollars| bucks)?)\b/g, 1500],
  [/\bhalf (?:a|of a) (?:hundred|ton)(?: dollars| bucks)?\b/g, 50],
  [/\bhalf (?:a|of a) (?:million|mil)(?: dollars| bucks)?\b/g, 500000],
];

/**
 * "not a cent more", "not one penny more": no amount, the bound said again (read as "not any
 * more", which readRestatedBounds reads after the bound).
 */
export const NOT_A_CENT = /\bnot (?:a|one|a single) (?:cent|penny|dime)\b/g;

/**
 * Reads fractions of a round amount ("half a grand") as dollars in digits ("$500"). Before
 * read-spelling.ts, which would read "a grand" in it as $1,000.
 */
export function readMoneyPhrases(buf: RequestText, ctx: RequestContext): void {
  buf.text = buf.text.replace(NOT_A_CENT, (all) => 'not any'.padEnd(all.length, ' '));
  for (const [re, usd] of FRACTIONS)
    for (const m of [...buf.text.matchAll(re)]) {
      const text = `$${usd}`;
      if (text.length > m[0].length) continue;
      buf.text =
        buf.text.slice(0, m.index) + text.padEnd(m[0].length, ' ') + buf.text.slice(m.index + m[0].length);
      ctx.assumptions.push(`"${m[0]}" is read as $${formatUsd(usd)}.`);
    }
}

/**
 * Words that say a bound again, right after it: "nothing more", "and no more", "not a cent more",
 * "no higher", "tops", "max", "at the most", "that's the limit", "hard cap". Only at the end of a
 * clause ("nothing more to do" is another thing).
 */
const RESTATED = new RegExp(
  String.raw`^(?:\s*[,;-]?\s*(?:(?:and|but|so)\s+)?(?:(?:nothing|no|not (?:a|one) (?:cent|penny|dollar|buck)|not (?:any|anything)|never) (?:more|higher|over|above|beyond|extra|else on top)(?: than that| that| it)?|(?:tops|max(?:imum)?|at (?:the )?most|absolute max(?:imum)?|hard (?:cap|limit|max)|(?:and )?that'?s the (?:limit|max(?:imum)?|cap|most))))(?=\s*(?:$|[,.;:!?)]|\b(?:please|pls|thanks|thx|ok)\b))`.replace(
    / /g,
    String.raw`\s+`,
  ),
);

/**
 * Cuts a bound said again right after an upper bound read-amounts cut out (`before`: the text as it
 * was before readMoney, so each cut shows as blanks where there were words). Read as nothing more
 * than the bound: listed under "Assumed".
 */
export function readRestatedBounds(buf: RequestText, before: string, raw: string, ctx: RequestContext): void {
  const ends: number[] = [];
  for (let i = 1; i <= buf.text.length; i++) {
    const cutHere = buf.text[i - 1] === ' ' && before[i - 1] !== ' ';
    const cutNext = i < buf.text.length && buf.text[i] === ' ' && before[i] !== ' ';
    if (cutHere && !cutNext) ends.push(i);
  }
  for (const end of ends) {
    const m = RESTATED.exec(buf.text.slice(end));
    if (!m || m[0].trim() === '') continue;
    const said = m[0].replace(/^\s*[,;-]?\s*/, '').trim();
    const at = end + m[0].indexOf(said);
    buf.text = buf.text.slice(0, at) + ' '.repeat(said.length) + buf.text.slice(at + said.length);
    ctx.assumptions.push(`"${raw.slice(at, at + said.length)}" is read as the bound just said, again.`);
  }
}
