/**
 * Words that say which ones, which the grammar reads past elsewhere, in a draft that moves money
 * or destroys: "new" before anything but what the trigger event creates ("freeze new sellers",
 * "complaints from new guests"; "new refund requests" is the event itself), and "US" before people
 * or the event's noun ("credit US customers", "US downgrades"). Unless a test of the draft holds
 * the value (`tier == "new"`, `region == "us"`), the draft would act on every one: asked. Pure.
 */
import type { EventShape } from '../compiled-request.ts';
import { EVENT_VERB_GROUPS, groupOf, lemmas, wordsOf } from '../request-words.ts';
import { isRoleWord } from './party-words.ts';
import type { DraftStep, RequestContext } from './request-context.ts';
import { splitType } from './trigger-words.ts';

/** Who "US" is said of beside the roles (party-words.ts): people and places any catalog has. */
const PEOPLE = /^(?:customers?|users?|employees?|staff|clients?|members?|accounts?|based|offices?|teams?)$/;
/** The event verbs that say something arrived or was asked for: "new" before their noun is the event. */
const ARRIVED = groupOf(EVENT_VERB_GROUPS, 'received')!;
const ASKED = groupOf(EVENT_VERB_GROUPS, 'requested')!;

/** `lower`: the request as normalised, its texts to send quoted (`"q<n>"`). */
export function askWhichOnesWords(
  lower: string,
  steps: readonly DraftStep[],
  shape: EventShape | undefined,
  drafted: string,
  ctx: RequestContext,
): void {
  if (!steps.some((s) => s.tool.cost?.fromArg !== undefined || s.tool.destructive)) return;
  const held = drafted.toLowerCase();
  const text = lower.replace(/"q[0-9]+"/g, ' ');
  const [noun, verb] = shape ? splitType(shape.type) : ['', ''];
  const nouns = wordsOf(`${noun} ${verb}`);
  // An event that something's arrival starts: "new" before its noun says that event.
  const creates = ARRIVED.includes(verb) || ASKED.includes(verb);
  const said: string[] = [];
  // ("every new hire" of employee.hired: the event's own verb; "the new ask": what is asked now.)
  const verbs = wordsOf(verb);
  for (const m of text.matchAll(/\bnew\s+([a-z]+)/g)) {
    const forms = lemmas(m[1]!);
    const of = forms.some((l) => nouns.has(l));
    const itself = forms.some((l) => verbs.has(l) || ASKED.includes(l));
    if ((of && creates) || itself || /"new"/.test(held)) continue;
    said.push(m[0]);
  }
  for (const m of text.matchAll(/\bus\s+([a-z]+)/g)) {
    const of = PEOPLE.test(m[1]!) || isRoleWord(m[1]!) || lemmas(m[1]!).some((l) => nouns.has(l));
    if (!of || /"us"/.test(held)) continue;
    said.push(`US ${m[1]}`);
  }
  if (said.length === 0) return;
  ctx.questions.push({
    about: 'triggers.when',
    question: `${said.map((s) => `"${s}"`).join(', ')} says which ones, but no test of the draft reads it, and a draft that ${steps.some((s) => s.tool.cost?.fromArg !== undefined) ? 'moves money' : 'destroys'} would act on every one. Which test is meant?`,
  });
}
