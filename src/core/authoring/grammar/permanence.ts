/**
 * Words that pick between two tools doing the same thing for a time or for good: "take it down
 * permanently", "remove it for good" -> the tool whose description says it cannot be undone ("for
 * good", "permanently", "cannot be undone"); "take it down pending review", "temporarily" -> the
 * one whose description says it can be ("pending review", "can be shown again", "temporarily").
 * Only among the tools the clause's action already fits ("take down" fits a tool that hides and
 * one that deletes); the choice is listed under "Assumed" with the words that made it. No such
 * word, or not exactly one tool described that way: undefined, and the person is asked as before.
 */
import type { ToolDescriptor } from '../../tools/tool-descriptor.ts';

const FOR_GOOD = /\b(?:permanently|for good|forever|for ever|irreversibly|once and for all)\b/;
const FOR_A_TIME =
  /\b(?:temporarily|for now|pending (?:a )?review|until (?:it is |it's )?reviewed|for the time being)\b/;
const SAYS_FOR_GOOD =
  /\b(?:for good|permanently|cannot be undone|can't be undone|can not be undone|irreversibl[a-z]*)\b/;
const SAYS_FOR_A_TIME =
  /\b(?:temporar[a-z]*|pending (?:a )?review|can be (?:shown|restored|undone|reversed|reinstated|lifted)|until)\b/;

/** The one candidate the clause's words of time pick (see the file's comment), or undefined. */
export function byPermanence(
  candidates: readonly ToolDescriptor[],
  clause: string,
): { tool: ToolDescriptor; said: string } | undefined {
  const good = FOR_GOOD.exec(clause);
  const time = FOR_A_TIME.exec(clause);
  if ((good === null) === (time === null)) return undefined;
  const says = good ? SAYS_FOR_GOOD : SAYS_FOR_A_TIME;
  const other = good ? SAYS_FOR_A_TIME : SAYS_FOR_GOOD;
  const fit = candidates.filter(
    (t) => says.test(t.description.toLowerCase()) && !other.test(t.description.toLowerCase()),
  );
  return fit.length === 1 ? { tool: fit[0]!, said: (good ?? time)![0] } : undefined;
}

/** "take down" names no one action: the tools that hide and the tools that delete or remove. */
export const TAKE_DOWN = 'takedown';
export const TAKE_DOWN_GROUPS = ['hide', 'delete', 'revoke'];
