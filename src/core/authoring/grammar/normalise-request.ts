/**
 * The first reading of a request: quotes kept aside, text lowercased with every position kept,
 * and a few phrases read as one word ("give them their money back" -> refund). Every later reader
 * works on this text and can point back into the request as written by position.
 *
 * A new idiom that stands for one action word belongs in `PHRASES`; it must keep the text's length.
 */

import { ACTION_GROUPS, GENERIC_VERBS } from '../request-words.ts';

/** Phrases read as one word (padded to their length, so positions in the text stay put). */
const PHRASES: readonly [RegExp, string][] = [
  [
    /\bgive (?:them|em|the customer|him|her|people|customers)? ?(?:their |the |her |his )?money back\b/g,
    'refund',
  ],
  [
    /\bpay (?:them|em|the customer|him|her|people|customers|users|employees|the employee|staff|(?:the |their )?money) back\b/g,
    'refund',
  ],
  // "pay back up to $12", "pay back customers": the money back; "pay back the invoice / a loan" is not.
  [
    /\bpay back\b(?!\s+(?:the |an? |their |that |this )?(?:invoices?|bills?|vendors?|suppliers?|loans?|debts?)\b)/g,
    'refund',
  ],
  [/\bsend (?:them |the customer )?(?:a |their )?refund\b/g, 'refund'],
  // "when the customer writes back", "once they got back to us": the event a reply is.
  [/\b(?:writes back|gets back to (?:us|me|you))\b/g, 'replies'],
  [
    /\b(?:wrote back|got back to (?:us|me|you)|(?:has|have) (?:written|gotten|got) back(?: to (?:us|me|you))?)\b/g,
    'replied',
  ],
  [/\bwrite back(?: to)?\b/g, 'reply'],
  // "just send back - Thanks for ...", "send back: ...": a reply with the text after it.
  [/\bsend back\b(?=\s*(?:[-:"]|with\b))/g, 'reply'],
  [/\bget back to\b/g, 'reply'],
  [/\blook up\b/g, 'lookup'],
  // "pay it by cheque": the British spelling of the method a tool's enum lists as "check".
  [/\bcheque\b/g, 'check'],
  // "auto-pay anything from V-100": the action, done without asking ("auto approve" may be a value).
  [/\bauto-(pay|approve|reimburse|refund|close|extend|grant|credit|tag|reply|respond|escalate)\b/g, '$1'],
  // "..., sign off on it": the action approve; "my sign-off", "I sign off on it": an approval.
  [/(?<=(?:^|[,.;:!?&]\s*|\b(?:and|then|please|pls|just)\s+))sign off on\b/g, 'approve'],
  [/\bsign[- ]off\b/g, 'approval'],
  [/\bgreen[- ]light\b/g, 'approval'],
  [/\bok\b(?= (?:first|before))/g, 'approval'],
  // "OK, when ...", "okay so ...": an interjection, not the action "OK it" (approve).
  [/(?<=^|[.!?]\s*)ok(?:ay)?\b(?=\s*,|\s+so\b|\s+now\b)/g, ''],
  // "ok" / "okay" with no object ("..., ok?", "ok thanks", "ok pay them"): an interjection; "OK it",
  // "okay the invoice" stay the action approve, and "my ok", "needs an ok" an approval.
  [
    new RegExp(
      String.raw`(?<!\b(?:my|our|your|their|his|her|a|an|the|'s|needs?|requires?|get|gets|without|until|unless|with|explicit|human|say|says|an? explicit)\s+)\bok(?:ay)?\b(?=\s*(?:[.,!?;:)]|$)|\s+(?:thanks|thx|then|so|now|yes|yeah|and|when|whenever|as soon|no|not|never|dont|don't|do|nothing|but|only|up|under|below|less|at|max|cap|capped|limit|budget|within|unless|if|${[...ACTION_GROUPS.flat(), ...GENERIC_VERBS].filter((w) => !/^ok/.test(w)).join('|')})\b)`,
      'g',
    ),
    '',
  ],
  // "no refunds above 75, apart from that refund them": "that" is the restriction just said, so the
  // words add nothing ("apart from VIPs" is an exception, and stays).
  [/\b(?:apart|aside) from that\b|\bother than that\b|\bbesides that\b/g, ''],
  // "sev 3", "sev-1": a severity said apart is the one word the catalogs spell ("sev3").
  [/\bsev[ -]([0-9])\b/g, 'sev$1'],
  // Chat abbreviations that carry nothing the grammar reads: please, as soon as possible, you, your.
  [/\bpl[sz]\b/g, ''],
  [/\basap\b/g, ''],
  [/(?<![a-z0-9.'$-])u(?![a-z0-9.'-])/g, ''],
  [/(?<![a-z0-9.'$-])ur(?![a-z0-9.'-])/g, ''],
];

/** Words a line may end with that lead on to the next line: it goes on there. */
const LEADS_ON =
  /\b(?:under|over|below|above|than|to|at|of|for|from|with|in|on|by|and|or|but|not|no|never|don'?t|dont|do|a|an|the|up|least|most|if|is|are|plus|only|just|then)\s*$/i;

/**
 * Lowercase text of the same length as `raw`, quoted text replaced by `"q<n>"` placeholders (the
 * quoted text is kept in `quotes`), curly quotes and dashes made plain.
 */
export function normaliseRequest(request: string, quotes: string[]): { lower: string; raw: string } {
  let raw = request
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u2013\u2014]/g, '-');
  raw = raw.replace(
    // An apostrophe inside a word ("We're", "customer's") neither ends nor starts a quotation.
    /"([^"]*)"|(^|[\s(:])'((?:[^']|(?<=[A-Za-z])'(?=[A-Za-z]))+)'(?=[\s,.;:!?)]|$)/g,
    (all, dq: string | undefined, pre: string | undefined, sq: string | undefined) => {
      const text = dq ?? sq ?? '';
      quotes.push(text);
      const mark = `"q${quotes.length - 1}"`;
      return `${pre ?? ''}${mark}`.padEnd(all.length, ' ');
    },
  );
  // A list's numbers ("1. refund it⏎2. reply") mark its lines, nothing more.
  raw = raw.replace(
    /(^|\n)([ \t]*)([0-9]{1,2}[.)])(?=[ \t])/g,
    (_, nl: string, sp: string, n: string) => `${nl}${sp}${' '.repeat(n.length)}`,
  );
  // A line that ends with no mark ends its sentence where the next line opens a case of its own
  // ("spam -> hide it⏎harassment -> ..."), never after a word that leads on ("under⏎$50", "don't⏎
  // notify"): one character for one, so positions stay put.
  raw = raw.replace(
    /(?<=[^\s.;:!?,(-])([ \t]*)\n(?=[ \t]*[^\s\-*•][^\n]{0,60}?(?:->|→|=>|:))/g,
    (all: string, sp: string, at: number, text: string) =>
      LEADS_ON.test(text.slice(0, at)) ? all : `${sp}.`,
  );
  raw = raw.replace(/\s/g, ' ');
  // "Ticket resolved -> reply ...": an arrow leads to what follows, like a colon.
  raw = raw.replace(/\s*(?:->|=>|→)\s*/g, (all) => ':'.padEnd(all.length, ' '));
  const lower = [...raw]
    .map((ch) => (ch.toLowerCase().length === ch.length ? ch.toLowerCase() : ch))
    .join('');
  return { lower, raw };
}

/** `lower` with each phrase of `PHRASES` replaced by its word, padded to the phrase's length. */
export function readPhrases(lower: string): string {
  let phrased = lower;
  for (const [re, word] of PHRASES)
    phrased = phrased.replace(re, (all, group: unknown) =>
      // (A phrase's first group stands for "$1" in its word.)
      word.replace('$1', typeof group === 'string' ? group : '').padEnd(all.length, ' '),
    );
  // "take it down", "taken down", "take the post down": one action (grammar/permanence.ts), its object kept.
  return phrased.replace(
    /\btak(?:e|es|en|ing)((?: (?:it|them|em|(?:the|this|that|their|its) [a-z]+))?) down\b/g,
    (all, object: string) => `${'takedown'.padEnd(all.length - object.length, ' ')}${object}`,
  );
}
