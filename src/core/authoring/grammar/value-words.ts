/**
 * Words that are values of a kind of field whatever the catalog: the ways something comes in
 * ("chat tickets", "email ones", "not phone ones"), for the event's one channel / source field.
 * Only words that name a channel and little else ("post", "mail", "text", "form", "app" are left
 * out: each is as often another thing); and the words that say how bad something is, for the one
 * severity / priority / level field. Data and tiny helpers only.
 */
const CHANNEL_WORDS = new Set(
  `chat livechat webchat email e-mail phone sms web api portal slack whatsapp twitter social mobile voice
  messenger facebook instagram telegram teams discord`.split(/\s+/),
);

/** A word naming a channel ("chat", "email"), as the value is written. */
export function isChannelWord(word: string): boolean {
  return CHANNEL_WORDS.has(word);
}

/** Words that say how bad or urgent something is, for the event's one severity / priority / level field. */
const SEVERITY: Record<string, string> = {
  critical: 'critical',
  crit: 'critical',
  high: 'high',
  medium: 'medium',
  low: 'low',
  warning: 'warning',
  warn: 'warning',
  error: 'error',
  info: 'info',
  major: 'major',
  minor: 'minor',
  urgent: 'urgent',
  emergency: 'emergency',
  fatal: 'fatal',
};

/** The severity a word says ("crit": critical), or undefined. */
export function severityOf(word: string): string | undefined {
  return Object.hasOwn(SEVERITY, word) ? SEVERITY[word] : undefined;
}

/** Words of how many, never a value a field is tested against ("nothing's outstanding"). */
export const HOW_MANY = /^(?:nothing|none|no|nobody|anything|everything|all|any|some|every)$/;
