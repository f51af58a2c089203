/**
 * The small vocabulary the offline compiler reads requests with: synonym groups for actions and
 * event verbs, words that carry no meaning for it, lemmas (closing -> close, refunds -> refund).
 * Data and tiny pure helpers only; docs/authoring.md lists these groups for people.
 */
import { SHORT_FORMS } from './short-forms.ts';

/** Actions people name in different words. The first word of a group is its name. */
export const ACTION_GROUPS: readonly (readonly string[])[] = [
  ['reply', 'respond', 'answer', 'response', 'acknowledge', 'acknowledgement', 'ack'],
  ['refund', 'reimburse', 'repay', 'refunds', 'reimbursement'],
  ['close', 'shut'],
  ['tag', 'label', 'categorise', 'categorize'],
  ['archive'],
  ['notify', 'alert', 'tell', 'inform', 'ping', 'message', 'msg', 'dm', 'pm'],
  ['page', 'wake'],
  ['escalate'],
  ['approve', 'accept', 'authorise', 'authorize', 'ok', 'okay', 'sanction'],
  ['reject', 'decline', 'deny', 'refuse'],
  ['pay', 'settle'],
  ['grant', 'give', 'provision'],
  ['revoke', 'remove', 'withdraw'],
  ['delete', 'erase', 'purge', 'wipe'],
  ['export', 'extract', 'download'],
  ['hide', 'unpublish', 'takedown'],
  ['flag', 'report'],
  ['fetch', 'look', 'lookup', 'get', 'load', 'read', 'check', 'retrieve'],
  ['create', 'open', 'file', 'raise', 'log'],
  ['email', 'mail'],
  ['post', 'publish', 'announce'],
  ['assign', 'route'],
];

/**
 * Actions that undo or refuse one another, by their groups' names: a verb of one never falls back
 * to a tool named for the other ("reject expenses" is no approve_expense).
 */
export const OPPOSITE_ACTIONS: readonly (readonly [string, string])[] = [
  ['approve', 'reject'],
  ['grant', 'revoke'],
  ['create', 'close'],
  ['create', 'delete'],
  ['pay', 'reject'],
  ['refund', 'reject'],
];

/** Whether two action groups (by their first words) undo or refuse one another. */
export const opposite = (a: string, b: string): boolean =>
  OPPOSITE_ACTIONS.some(([x, y]) => (x === a && y === b) || (x === b && y === a));

/** Verbs that name no action by themselves: the object decides ("issue a refund", "send a reply"). */
export const GENERIC_VERBS = new Set([
  'send',
  'issue',
  'process',
  'handle',
  'do',
  'make',
  'add',
  'put',
  'leave',
  'write',
  'draft',
  'mark',
  'set',
  'run',
  'perform',
  'go',
  'execute',
  'submit',
]);

/** Event verbs: what a trigger says happened, grouped as event types name it. */
export const EVENT_VERB_GROUPS: readonly (readonly string[])[] = [
  [
    'requested',
    'asked',
    'request',
    'requests',
    'ask',
    'asks',
    'asking',
    'requesting',
    'wants',
    'want',
    'wanting',
    'needs',
    // "access req", "refund reqs": the noun said short, as "refund requests" (short-forms.ts).
    'req',
    'reqs',
  ],
  [
    'opened',
    'created',
    'new',
    'submitted',
    'filed',
    'raised',
    'received',
    'arrived',
    'comes',
    'came',
    'opens',
    'submits',
    'files',
    'raises',
    'creates',
    'sends',
    'sent',
  ],
  ['resolved', 'solved', 'fixed', 'resolves'],
  ['closed', 'closes'],
  ['paid', 'pays', 'settled'],
  ['approved', 'approves'],
  ['rejected', 'declined', 'denied'],
  ['escalated'],
  ['flagged', 'reported', 'flags', 'reports'],
  ['updated', 'changed', 'edited'],
  ['cancelled', 'canceled', 'cancels'],
  ['failed', 'fails', 'breached', 'breaches', 'fired', 'fires', 'triggered', 'triggers', 'down'],
  ['posted', 'published', 'posts'],
  ['due', 'overdue'],
];

/** Words the compiler skips in an action clause. */
export const FILLER = new Set([
  'a',
  'an',
  'the',
  'it',
  'its',
  'them',
  'em',
  'their',
  'they',
  'him',
  'her',
  'his',
  'this',
  'that',
  'these',
  'those',
  'to',
  'of',
  'for',
  'on',
  'in',
  'at',
  'by',
  'with',
  'from',
  'into',
  'onto',
  'about',
  'as',
  'so',
  'please',
  'just',
  'also',
  'automatically',
  'always',
  'immediately',
  'right',
  'away',
  'then',
  'and',
  'we',
  'i',
  'you',
  'me',
  'us',
  'our',
  'my',
  'your',
  'should',
  'must',
  'want',
  'would',
  'like',
  'need',
  'can',
  'could',
  'will',
  'shall',
  'let',
  "let's",
  'lets',
  'go',
  'ahead',
  'sure',
  'make',
  'be',
  'is',
  'are',
  'am',
  'get',
  'gets',
  'have',
  'has',
  'do',
  'does',
  'customer',
  'customers',
  'user',
  'users',
  'someone',
  'anyone',
  'everyone',
  'anybody',
  'person',
  'back',
  'up',
  'out',
  'over',
  'all',
  'any',
  'each',
  'every',
  'one',
  'same',
  'requested',
  'full',
  'amount',
  'money',
  'first',
  'finally',
  'next',
  'after',
  'afterwards',
  'that',
  'which',
  'who',
  'whose',
  'what',
  'now',
  'too',
  'quickly',
  'politely',
  // Adverbs that say how sure or how fast, never what: "revoke it, obviously", "delete outright".
  'obviously',
  'clearly',
  'naturally',
  'definitely',
  'outright',
  'but',
  'incoming',
  // Chat filler that changes nothing a draft says: "dont pay more than 2.5k tho", "yes pay them",
  // "..., thanks". Never a negation, a restriction ("only", "unless") or an amount.
  'tho',
  'though',
  'yes',
  'yeah',
  'yep',
  'kindly',
  'thanks',
  'thank',
  'thx',
  'cheers',
  'hey',
  'hi',
  'hello',
  'basically',
  'btw',
  'fyi',
]);

export function groupOf(groups: readonly (readonly string[])[], word: string): readonly string[] | undefined {
  return groups.find((g) => g.includes(word));
}

/** A word's plain forms: `closing` -> close, `tagged` -> tag, `refunds` -> refund, `replies` -> reply. */
export function lemmas(word: string): string[] {
  const w = word.toLowerCase();
  // "tix", "req": the full word's forms too (short-forms.ts).
  const full = SHORT_FORMS.get(w);
  if (full !== undefined) return [...new Set([w, ...lemmas(full)])];
  // British and American spellings: authorise/authorize, categorised/categorized, organisation.
  const other = /^[a-z]{3,}i[sz](?:e|ed|es|ing|ation|ations)$/.test(w)
    ? w.replace(
        /i([sz])(e|ed|es|ing|ation|ations)$/,
        (_, c: string, end: string) => `i${c === 's' ? 'z' : 's'}${end}`,
      )
    : undefined;
  if (other !== undefined) return [...new Set([...plainForms(w), ...plainForms(other)])];
  return plainForms(w);
}

function plainForms(w: string): string[] {
  const out = new Set<string>([w]);
  const add = (stem: string) => {
    if (stem.length < 2) return;
    out.add(stem);
    out.add(`${stem}e`);
    if (/(.)\1$/.test(stem)) out.add(stem.slice(0, -1));
  };
  if (w.endsWith('ing')) add(w.slice(0, -3));
  if (w.endsWith('ion') && w.length > 5) add(w.slice(0, -3)); // deletion -> delete
  if (w.endsWith('ment') && w.length > 6) out.add(w.slice(0, -4)); // payment -> pay, settlement -> settle
  if (w.endsWith('al') && w.length > 6) add(w.slice(0, -2)); // approval -> approve, renewal -> renew
  if (w.endsWith('ied') || w.endsWith('ies')) out.add(`${w.slice(0, -3)}y`);
  if (w.endsWith('ed')) {
    add(w.slice(0, -2));
    out.add(w.slice(0, -1));
  }
  if (w.endsWith('es')) out.add(w.slice(0, -2));
  if (w.endsWith('s') && !w.endsWith('ss')) out.add(w.slice(0, -1));
  return [...out];
}

/** The words of a tool name or text: split on `_ . -` and spaces, lowercase, with their lemmas. */
export function wordsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().split(/[^a-z0-9]+/)) if (w) for (const l of lemmas(w)) out.add(l);
  return out;
}

/** Every word a catalog uses: its tools' names and descriptions, its events' types and payload fields, with lemmas. */
export function vocabularyOf(
  tools: readonly { readonly name: string; readonly description: string }[],
  events: readonly { readonly type: string; readonly payload: readonly string[] }[] = [],
): Set<string> {
  return wordsOf(
    [...tools.flatMap((t) => [t.name, t.description]), ...events.flatMap((e) => [e.type, ...e.payload])].join(
      ' ',
    ),
  );
}

/** The number words zero to nineteen, each at its value. */
export const UNITS: readonly string[] = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];

/** `zero`..`twelve` and digits as a number. */
export function numberWord(w: string): number | undefined {
  const i = UNITS.indexOf(w);
  if (i >= 0 && i <= 12) return i;
  return /^[0-9]{1,4}$/.test(w) ? Number(w) : undefined;
}

/** The indefinite article a word takes as written ("an invoice", "a refund"; by its first letter). */
export const article = (word: string): 'a' | 'an' => (/^[aeiou]/i.test(word) ? 'an' : 'a');

/** A word that says an action: a verb of an action group ("refund", "tags") or a generic verb ("send"). */
export function isActionVerb(w: string): boolean {
  return GENERIC_VERBS.has(w) || lemmas(w).some((l) => groupOf(ACTION_GROUPS, l) !== undefined);
}
