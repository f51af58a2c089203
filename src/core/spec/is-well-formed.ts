// In `u` mode a well-formed surrogate pair is one code point, so this matches only lone surrogates.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** False when a string holds a lone UTF-16 surrogate, which has no canonical (UTF-8) form. */
export function isWellFormed(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}
