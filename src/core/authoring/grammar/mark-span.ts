/**
 * Where a reader's mark (`"q12"`, a value read for an argument) goes in the request's text: the
 * phrase it replaces, widened when the mark is longer than the phrase, since the text keeps its
 * length (a clause's words as written stay where they were). A short phrase ("p1") takes the blank
 * and comma before it: it joins the clause it follows; still short ("with a 2h target"), the blank
 * after it; said in parentheses ("tier 2 (4h)"), the parentheses. Undefined: no room.
 */
export function markSpan(text: string, at: number, end: number, width: number): [number, number] | undefined {
  let [from, to] = [at, end];
  while (width > to - from && from > 0 && /[\s,;:]/.test(text[from - 1]!)) from--;
  if (width === to - from + 1 && /\s/.test(text[to] ?? '')) to++;
  if (width > to - from && text[from - 1] === '(' && text[to] === ')') [from, to] = [from - 1, to + 1];
  return width > to - from ? undefined : [from, to];
}
