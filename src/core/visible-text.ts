/**
 * Direction controls made visible. A value that carries a Unicode direction control (an embedding,
 * override, isolate or mark) can reorder what a reader sees: `invoice-<U+202E>fdp.exe` is drawn as
 * `invoice-exe.pdf`, and an override left open reverses the rest of the sentence it sits in. Every
 * place that shows a value to a person (`keel history`, the console) shows each such control as
 * the escape `⟨U+202E⟩` instead. Pure: the same text in, the same text out.
 */

/**
 * The direction controls shown as escapes: U+202A–U+202E (embeddings, overrides, their pop),
 * U+2066–U+2069 (isolates, their pop), U+200E and U+200F (the left-to-right and right-to-left
 * marks) and U+061C (the Arabic letter mark).
 */
export const DIRECTION_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;

/** The escape a direction control is shown as: `⟨U+202E⟩`. */
export function controlEscape(c: string): string {
  return `⟨U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/** `s` with every direction control shown as its escape (`⟨U+202E⟩`); anything else unchanged. */
export function visibleText(s: string): string {
  return s.replace(DIRECTION_CONTROLS, controlEscape);
}

/**
 * A JSON value with `visibleText` applied to every string in it, keys included; numbers, booleans
 * and null as they are. For showing a decoded payload or an API answer, never for storing one.
 */
export function visibleValue<T>(v: T): T {
  if (typeof v === 'string') return visibleText(v) as T;
  if (Array.isArray(v)) return v.map(visibleValue) as T;
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [visibleText(k), visibleValue(x)])) as T;
  return v;
}
