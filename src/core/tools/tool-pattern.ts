/**
 * Tool patterns, shared by policy rules and writ scopes: an exact tool name (`issue_refund`), a
 * prefix pattern (`payments.*`: every tool whose name starts with `payments.`) or `*` (every tool).
 *
 * Owns matching a name and the subset relation between patterns (`covers`), the one rule writ
 * attenuation relies on. Pure; never guesses: anything else is not a pattern.
 */

const NAME = '[A-Za-z_][A-Za-z0-9_.-]{0,127}';
const PATTERN_RE = new RegExp(`^(?:\\*|${NAME}|(?:${NAME}\\.)\\*)$`);

export function isToolPattern(p: unknown): p is string {
  return typeof p === 'string' && PATTERN_RE.test(p) && !p.includes('..');
}

/** The prefix a pattern stands for (`payments.` for `payments.*`, `` for `*`), or undefined for an exact name. */
function prefixOf(p: string): string | undefined {
  return p.endsWith('*') ? p.slice(0, -1) : undefined;
}

/** True when `pattern` matches the tool called `name`. */
export function patternMatches(pattern: string, name: string): boolean {
  const prefix = prefixOf(pattern);
  return prefix === undefined ? pattern === name : name.startsWith(prefix);
}

/** True when every tool `inner` matches is also matched by `outer`. */
export function patternCovers(outer: string, inner: string): boolean {
  const o = prefixOf(outer);
  if (o === undefined) return outer === inner;
  const i = prefixOf(inner);
  return (i ?? inner).startsWith(o);
}
