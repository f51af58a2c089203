/**
 * Where a clause typed without a comma goes on to ask a person for an approval a tool asks for:
 * "payout requests over $2k get finance approval" is the trigger, then a step ("get finance
 * approval": request_finance_approval). Read as one heading, the approval was cut out with the
 * trigger and dropped, and the payout drafted alone. Pure.
 */
import { ACTION_GROUPS, groupOf, lemmas } from '../request-words.ts';
import type { RequestContext } from './request-context.ts';
import { toolWords } from './tool-words.ts';

/** Whether `w` names a tool of the catalog by its name or its description's first words. */
export function namesTool(w: string, ctx: RequestContext): boolean {
  return lemmas(w).some((l) => {
    const g = groupOf(ACTION_GROUPS, l) ?? [l];
    return ctx.tools.some((t) => g.some((x) => toolWords(t).name.has(x) || toolWords(t).first.has(x)));
  });
}

/** What a person is asked for: an approval, a sign-off, an ok. */
const ASKED = /^(?:approval|sign-?off|signoff|ok|okay|go-ahead|authori[sz]ation)$/;

/**
 * The index in `clause` of a "get" / "ask" / "seek" / "obtain" past its first two words whose
 * object is an approval or the like that a tool of the catalog asks for.
 */
export function askedAt(clause: string, ctx: RequestContext): number | undefined {
  const words = [...clause.matchAll(/[a-z0-9_'-]+|"q[0-9]+"/g)];
  const at = words.findIndex(
    (w, i) =>
      i > 1 &&
      /^(?:get|ask|seek|obtain)$/.test(w[0]) &&
      [words[i + 1]?.[0], words[i + 2]?.[0]].some(
        (x) => x !== undefined && ASKED.test(x) && namesTool(x, ctx),
      ),
  );
  return at < 0 ? undefined : words[at]!.index;
}
