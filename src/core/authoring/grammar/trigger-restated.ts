/**
 * A clause that names the trigger's own event again as a noun ("requests for the viewer role - grant
 * immediately" on `access.requested`): its first word is the event's verb in a plural form
 * ("requests"), which would otherwise be read as the action of a tool named with that verb
 * (`request_manager_signoff`), or the verb as the type says it ("filed with a police report" on
 * `claim.filed`, which would be read as `open_adjuster_task`). Whether it is that action or the event said again is a question,
 * never a step: a misread step could otherwise be drafted whole (its arguments read from the
 * event and the directory) and publishable.
 */
import { FILLER, lemmas } from '../request-words.ts';
import type { Clause } from './read-clauses.ts';

/** The clause's first word, when it is the trigger event's verb said as a plural noun or as its type says it. */
export function restatedEventWord(c: Clause, event: string | undefined): string | undefined {
  const verb = event?.split('.').at(-1);
  if (!verb) return undefined;
  const first = c.text
    .replace(/"q[0-9]+"/g, ' ')
    .split(/[^a-z0-9'-]+/)
    .find((w) => w && !FILLER.has(w));
  if (!first) return undefined;
  // ("auto claims under $1,500 filed with a police report: pay it": the event's own verb as its type
  // says it, never the action its group names, open_adjuster_task.)
  if (first === verb) return first;
  if (!/[^s]s$/.test(first)) return undefined;
  const own = new Set(lemmas(verb));
  return lemmas(first).some((l) => own.has(l)) ? first : undefined;
}
