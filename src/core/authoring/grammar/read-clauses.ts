/**
 * The clause part of the grammar: what is left of the text once limits, conditions and the trigger
 * are cut out is split into action clauses, in the order they run. Sentences split at `.;!?`;
 * a sentence into a sequence at commas, `then`, `and`, `first`, `finally`, `before`, `after` ("refund
 * them after replying" replies first; "after replying, refund them" too), `:`. An approval phrase ("ask me before closing", "never
 * refund without approval", "..., but ask me first") marks the clauses it covers.
 *
 * New ways of ordering or gating actions (branches, parallel paths, waits) belong here: a clause is
 * the unit the step reader (read-steps.ts) turns into a step.
 */

/** One action as the request says it. */
export interface Clause {
  /** Lowercased text. */
  text: string;
  /** The same characters as written (quotes kept as placeholders in `text`). */
  raw: string;
  approval: boolean;
  /** The sentence as written before the clause ("for employee E-42 " of "... only: approve it"). */
  lead?: string;
}

const APPROVAL_PATTERNS: readonly RegExp[] = [
  /\b(?:ask|check with|consult|ping) (?:me|us|a person|a human|someone|my manager|a manager|the team lead|a supervisor)(?: first)? before (?:you )?(.+)$/,
  /\b(?:get|wait for|require|need) (?:my|our|their|the|an?|a person's|a manager's|human|explicit)? ?(?:approval|ok|okay|sign-off|signoff|go-ahead)(?: first)? (?:before|for) (?:you )?(.+)$/,
  /\bnever (.+?) without (?:my |our |an? |a person's |a manager's |human |explicit )?(?:approval|asking|permission|sign-off|ok|okay|go-ahead)(?: first)?\b(.*)$/,
  /\bdo(?:n't| not) (.+?) (?:without|until|unless) (?:i|we|someone|a person|a manager) (?:approve|approves|say so|ok it|okay it|sign off)\b(.*)$/,
  /\bonly (.+?) (?:after|once|when) (?:i|we|someone|a person|a manager)(?:'ve| have| has)? (?:approve|approves|approved|has approved|authori[sz]ed?|ok it|okays it|okayed it|ok'd it)\b(.*)$/,
  /^(.+?) (?:needs|need|requires|require|must get|must have|should need|should get) (?:my |our |an? |a person's |a manager's |human |explicit )?(?:approval|sign-off|signoff|ok|okay)\b(.*)$/,
  /^(.+?) (?:with|after) (?:my|our|a person's|a manager's) (?:approval|sign-off|ok|okay)\b(.*)$/,
  // "..., but only after I approve the closing", "only once I've approved": the action it names.
  /\b(?:but )?only (?:after|once|when) (?:i|we|someone|a person|a manager)(?: have| has|'ve)? (?:approve|approves|approved|authori[sz]e|authori[sz]ed|sign(?:ed)? off on|approval on|signed off on|ok|okay)(?: of)? (?:the |it |that |each |every )?(.*?)(?: first)?()$/,
  // "but I want to approve each refund first", "let me authorise the close first".
  /\b(?:but )?(?:i want to|i'd like to|i would like to|let me|i need to|i will|i'll|i must) (?:approve|authori[sz]e|sign off on|approval on|ok|okay) (?:the |it |that |each |every |all )?(.*?)(?: first)?()$/,
];

/** Words that end with "first": what they say runs before what was said before them. */
export const SAID_FIRST = /\bfirst\s*$/;

/** The action clauses, in the order they run ("A after B" runs B first). */
export function splitClauses(text: string, raw: string): Clause[] {
  const out: Clause[] = [];
  const sentences: [number, number][] = [];
  let from = 0;
  const sep = /[.;!?](?=\s|$)|\n/g;
  for (let m = sep.exec(text); m; m = sep.exec(text)) {
    sentences.push([from, m.index]);
    from = m.index + m[0].length;
  }
  sentences.push([from, text.length]);
  let said: number | undefined;
  for (const [a, b] of sentences) {
    const s = text.slice(a, b);
    if (s.trim() === '') continue;
    // An approval clause takes the rest of its sentence: "ask me before closing or refunding".
    let approvalAt = -1;
    let approvalText = '';
    for (const re of APPROVAL_PATTERNS) {
      const m = re.exec(s);
      if (m && (approvalAt < 0 || m.index < approvalAt)) {
        approvalAt = m.index;
        approvalText = `${m[1] ?? ''} ${m[2] ?? ''}`;
      }
    }
    // "delete it, but ask me first": the approval is of the action just before it.
    const first =
      approvalAt < 0
        ? /,?\s*(?:but |and )?(?:ask|check with) (?:me|us|a person|someone|my manager|a manager) first\b.*$/.exec(
            s,
          )
        : null;
    const plain = approvalAt >= 0 ? s.slice(0, approvalAt) : first ? s.slice(0, first.index) : s;
    const before = out.length;
    for (const part of splitSequence(plain))
      out.push({
        text: part.text,
        raw: raw.slice(a + part.at, a + part.at + part.text.length),
        approval: false,
        lead: raw.slice(a, a + part.at),
      });
    if (first && out.length > before) out[out.length - 1]!.approval = true;
    // "credit them. if it's over 75 a lead needs to ok it first": a sentence that ends in "first"
    // runs before the sentence said before it.
    if (!first && approvalAt < 0 && said !== undefined && SAID_FIRST.test(s) && out.length > before)
      out.splice(said, 0, ...out.splice(before));
    else if (out.length > before) said = before;
    if (approvalAt >= 0)
      for (const part of approvalText.split(/,|\bor\b|\band\b/)) {
        const t = part.trim();
        if (t !== '') out.push({ text: t, raw: t, approval: true });
      }
  }
  return out;
}

/**
 * The words that led a condition the readers already took out of the clause ("refund them if it's
 * [$25 or less]", "..., but only when it's [in USD]"): nothing is left of the condition but its lead-in,
 * and the blank where the reader cut it (an "if" typed with nothing after it is kept, and asked about).
 */
const DANGLING_CONDITION =
  /(?:^|\s+)(?:but\s+)?(?:only\s+)?(?:if|when|whenever|provided(?:\s+that)?|as long as)(?:\s+(?:it's|its|it is|they're|theyre|they are|that's|thats|that is|the (?:amount|refund|total|invoice|sum|payment|expense|report) is))?\s{2,}$/;

function splitSequence(s: string): { text: string; at: number }[] {
  const pieces: { text: string; at: number }[] = [];
  // (", after approving them" is "after" too: the comma does not make it a step of its own.)
  const re =
    /(?<![0-9]),\s*after\s+(?=(?!(?:getting|receiving|having|obtaining|waiting|hearing|asking)\b)[a-z]+ing\b)|(?<![0-9]),(?!\s*(?:saying|telling them|that says|which says)\s+"q[0-9]+")\s*(?:and\s+)?(?:then\s+)?|(?<=[0-9]),(?![0-9]{3}(?![0-9]))\s*(?:and\s+)?(?:then\s+)?|\s*[&+]\s*(?:then\s+)?|\s+and then\s+|\s+then\s+|\s+and\s+|\s+after that,?\s+|\s+afterwards,?\s+|\bfirst,?\s+|\bfinally,?\s+|\bnext,?\s+|\s+before\s+|\s+after\s+|\s+once(?=\s+(?:the|their|his|her|my|our|your|a|an|it|they|he|she|someone|somebody|we|i)\s)\s+|\s+once that is done,?\s+|:\s*|\s+-\s+|\s+plus\s+|\s+also\s+|\s+but\s+(?!(?:only|not|never|no|don'?t|dont|do|first|if|when|unless|just|also|then|please|pls|ask|check|wait|except|keep|leave|skip|ignore)\b)(?=[a-z]+\s+[a-z"])/g;
  let from = 0;
  const marks: string[] = [];
  // "after scheduling payment (cap 800), email the vendor": the action said with "after" runs
  // first; it ends at a comma or where a reader cut words out (its cap), else it is left whole.
  const lead = /^(\s*after\s+)([a-z]+ing\b[^,:]*?)(?:,\s*(?:then\s+)?|\s*\(\s*\)\s*|\s{2,})(?=[a-z"])/.exec(
    s,
  );
  if (lead) {
    pieces.push({ text: lead[2]!, at: lead[1]!.length });
    marks.push(',');
    from = lead[0].length;
    re.lastIndex = from;
  }
  for (let m = re.exec(s); m; m = re.exec(s)) {
    pieces.push({ text: s.slice(from, m.index), at: from });
    marks.push(/^,\s*after\b/.test(m[0]) ? ',after' : m[0].trim());
    from = m.index + m[0].length;
  }
  pieces.push({ text: s.slice(from), at: from });
  // "refund them after replying", "grant it once their manager has approved": the part after
  // `after` / `once` runs first.
  const ordered: { text: string; at: number }[] = [];
  for (let i = 0; i < pieces.length; i++) {
    // ("approve and reimburse them, after checking receipts": what comes after the comma runs
    // before everything said before it.)
    if (marks[i] === ',after' && i + 1 < pieces.length) {
      ordered.unshift(pieces[i + 1]!);
      ordered.push(pieces[i]!);
      i++;
    } else if ((marks[i] === 'after' || marks[i] === 'once') && i + 1 < pieces.length) {
      ordered.push(pieces[i + 1]!, pieces[i]!);
      i++;
    } else ordered.push(pieces[i]!);
  }
  // "reimburse them and approve the report first": an action said with "first" runs first.
  const firstOnes = ordered.filter((p, i) => i > 0 && /\s+first\s*$/.test(p.text));
  const inOrder = [...firstOnes, ...ordered.filter((p) => !firstOnes.includes(p))].map((p) =>
    firstOnes.includes(p) ? { text: p.text.replace(/\s+first\s*$/, ''), at: p.at } : p,
  );
  return inOrder
    .map((p) => ({ text: p.text.replace(DANGLING_CONDITION, ''), at: p.at }))
    .filter((p) => /[a-z]/.test(p.text.replace(/"q[0-9]+"/g, '')) || /"q[0-9]+"/.test(p.text))
    .map((p) => ({ text: p.text.trim(), at: p.at + (p.text.length - p.text.trimStart().length) }));
}
