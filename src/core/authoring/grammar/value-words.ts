/**
 * Words that are values of a kind of field whatever the catalog: the ways something comes in
 * ("chat tickets", "email ones", "not phone ones"), for the event's one channel / source field.
 * Only words that name a channel and little else ("post", "mail", "text", "form", "app" are left
 * out: each is as often another thing). Data and a tiny helper only.
 */
const CHANNEL_WORDS = new Set(
  `chat livechat webchat email e-mail phone sms web api portal slack whatsapp twitter social mobile voice
  messenger facebook instagram telegram teams discord`.split(/\s+/),
);

/** A word naming a channel ("chat", "email"), as the value is written. */
export function isChannelWord(word: string): boolean {
  return CHANNEL_WORDS.has(word);
}
