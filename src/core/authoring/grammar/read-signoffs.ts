/**
 * A sign-off asked of a person the catalog's approval step names: "get their manager to sign off",
 * "send it to their manager for sign-off", "it needs the manager's ok", "have the owner approve
 * it". When the catalog has exactly one tool that is an approval gate (`approval: always`) whose
 * name holds the person's noun (`request_manager_signoff`), the clause is a call of it, Assumed. A
 * sign-off of no one the catalog names ("get my approval") stays an approval of the actions it is
 * said with (read-clauses.ts). Pure.
 */
import type { ToolDescriptor } from '../../tools/tool-descriptor.ts';
import { ACTION_GROUPS, EVENT_VERB_GROUPS, groupOf, lemmas, wordsOf } from '../request-words.ts';
import type { Clause } from './read-clauses.ts';
import type { RequestContext } from './request-context.ts';

/** Words of a sign-off, after normalise-request.ts ("sign off", "sign-off" -> approval). */
const SIGN_OFF =
  /\b(?:approval|approve|approves|approved|ok|okay|ok's|signs off|signed off|signoff|authori[sz]ation|go-ahead|consent)\b/;

/** The approval gate a clause asks a named person for, when the catalog has exactly one. */
export function signoffTool(c: Clause, ctx: RequestContext): ToolDescriptor | undefined {
  const text = c.text.replace(/"q[0-9]+"/g, ' ');
  if (!SIGN_OFF.test(text)) return undefined;
  const words = new Set(
    text
      .replace(/'s\b/g, '')
      .split(/[^a-z0-9-]+/)
      .flatMap((w) => lemmas(w)),
  );
  // "my approval", "ask me": a person the catalog does not name.
  const gates = ctx.tools.filter(
    (t) =>
      t.approval === 'always' &&
      [...wordsOf(t.name.replace(/[_.-]/g, ' '))].some(
        (w) =>
          w.length > 3 &&
          !SIGN_OFF.test(w) &&
          groupOf(EVENT_VERB_GROUPS, w) === undefined &&
          groupOf(ACTION_GROUPS, w) === undefined &&
          words.has(w),
      ),
  );
  if (gates.length !== 1) return undefined;
  const gate = gates[0]!;
  ctx.assumptions.push(
    `"${c.raw.trim()}" is read as ${gate.name}: the catalog's one sign-off by that person.`,
  );
  return gate;
}
