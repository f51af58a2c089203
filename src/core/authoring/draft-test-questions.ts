/**
 * The questions a draft's tests raise, read against its events and the request's own words, so
 * they hold whatever compiled it: a test no event can meet, a value spelt otherwise than the events
 * spell it, an exclusion dropped or kept the wrong way, a field or a thing said and read nowhere, a
 * fixed value the draft's own test contradicts, an argument its tool never takes, a step the
 * trigger rules out. `banned` says whether words are an action the request forbids (a ban, asked
 * about by draft-safety.ts, never an exclusion). Pure.
 */
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import { alternativesNotSaid } from './alternatives-not-said.ts';
import { argsOutOfRange } from './args-out-of-range.ts';
import type { DraftCatalog } from './compiled-request.ts';
import { constantsOverEvents, untestedConstants } from './constants-over-events.ts';
import { droppedExclusion, testedThoughNotMattering } from './dropped-exclusions.ts';
import { fieldsReadNowhere, possessionsReadNowhere } from './fields-read-nowhere.ts';
import { misspelledTests } from './grammar/event-spelling.ts';
import { listOr } from './grammar/request-context.ts';
import { stepsThatNeverRun, testsNoEventMeets, triggersThatNeverFire } from './never-runs.ts';
import { statesReadNowhere } from './states-read-nowhere.ts';

export function draftTestQuestions(
  spec: WorkflowSpec,
  request: string,
  catalog: DraftCatalog,
  banned: (words: string) => boolean,
): string[] {
  const qs: string[] = [];
  const ask = (q: string) => qs.push(q);
  // A trigger's test that rules itself out: no event would ever start a run.
  for (const when of triggersThatNeverFire(spec))
    ask(
      `The workflow starts only when ${JSON.stringify(when)}, which no event can meet: it tests one field against values that cannot both hold. Which test is meant?`,
    );
  // "cancel it, but not premium plans": something left out, and nothing in the draft leaves it out.
  const excluded = droppedExclusion(request, spec, catalog.tools);
  if (excluded !== undefined && !banned(excluded))
    ask(
      `The request says "${excluded}", but no test of the draft leaves those events out: it would act on them too. Which test is meant?`,
    );
  // "reason != \"too expensive\"" where the events say too_expensive: the test matches no event.
  for (const m of misspelledTests(spec, catalog))
    ask(
      `The test ${JSON.stringify(m.test)} names a value otherwise than the events spell it (${JSON.stringify(m.spelled)}): as written it matches no event. Which is meant?`,
    );
  // "pay it whether or not there's a police report": a test of what the words say does not matter.
  const notMattering = testedThoughNotMattering(request, spec);
  if (notMattering !== undefined)
    ask(
      `The request says "${notMattering}", but the draft tests it: it would act on some of those events only. Which is meant?`,
    );
  // "first payout is no: pay it": a field the words name and the draft reads nowhere.
  for (const f of fieldsReadNowhere(request, spec, catalog))
    ask(
      `The request names the event's ${f} ("${f.replace(/_/g, ' ')}"), but the draft reads it nowhere: no test or step says what it means for the workflow. Which test of ${f} is meant?`,
    );
  // "grant editor access on analytics or crm": a fixed value the draft's own test contradicts.
  // (A test said as the words' own "not" is a choice they made: "the role is not viewer, grant viewer".)
  const forbids = (value: string) =>
    new RegExp(
      String.raw`\b(?:never|don'?t|do not|dont|no)\b[^.;]*\b${value.replace(/[^a-z0-9]/gi, '.')}\b`,
      'i',
    ).test(request);
  for (const c of constantsOverEvents(spec, catalog).filter((c) => !c.not || forbids(c.said)))
    ask(
      c.not
        ? `Step ${c.step} (${c.tool}) gives ${c.arg} "${c.value}", but the workflow runs only for ${c.event} events whose ${c.field} is not "${c.said}": it would give "${c.value}" to events that asked for something else. Which ${c.arg} is meant, and for which events?`
        : `Step ${c.step} (${c.tool}) gives ${c.arg} "${c.value}", but the workflow runs for ${c.event} events whose ${c.field} is "${c.said}": it would give "${c.value}" where the event says "${c.said}". Which ${c.arg} is meant, and for which events?`,
    );
  // "viewer access to analytics is granted automatically": one value given to every event, whatever its own says.
  for (const c of untestedConstants(request, spec, catalog))
    ask(
      `Step ${c.step} (${c.tool}) gives ${c.arg} "${c.value}" on every ${c.event} event, whatever ${c.arg} the event itself says, and no test reads it. Should it run only for events whose ${c.arg} is "${c.value}", or give "${c.value}" to every event?`,
    );
  // "open an incident with the alert severity": a value the tool never takes, on every run.
  for (const a of argsOutOfRange(spec, catalog))
    ask(
      `Step ${a.step} (${a.tool}) gives ${a.arg} the event's ${a.field}, which the samples show as ${listOr(a.sampled)}, but ${a.tool} takes ${listOr(a.takes)}: every run would fail there. Which ${a.arg} is meant?`,
    );
  // "reports that have receipts": something the events are said to have, checked nowhere.
  for (const said of possessionsReadNowhere(request, spec, catalog))
    ask(
      `The request says "${said}", but the draft checks it nowhere: it would act on the events without it too. Which step or test is meant?`,
    );
  // A yes/no or number field tested against a word ("without autopay" read as `autopay == "without"`).
  for (const f of testsNoEventMeets(spec, catalog.events ?? []))
    ask(
      `The test ${JSON.stringify(f.when)} compares ${f.field} with ${JSON.stringify(f.value)}, but the event gives ${f.field} as ${f.gives}: no event would meet it. Which is meant?`,
    );
  // A step's test the trigger rules out: the words were two sides, read as two tests of one field.
  for (const n of stepsThatNeverRun(spec))
    ask(
      `Step ${n.step} runs only when ${JSON.stringify(n.when)}, but the workflow starts only when ${JSON.stringify(n.trigger)}: it would never run. What should happen, and for which events?`,
    );
  // "reimburse approved expenses" on expense.submitted: a state of the events no test reads.
  for (const said of statesReadNowhere(request, spec))
    ask(
      `The request says "${said}", but the workflow starts on ${spec.triggers.map((t) => t.event).join(' or ')} and no test says so: it would act on the others too. Which event or test is meant?`,
    );
  // "reported for harassment, remove it for spam": two values said apart, tested as alternatives.
  for (const group of alternativesNotSaid(request, spec))
    ask(
      `The draft runs for events where ${group}, but the request never says those values together: one may be what an action should say, not which events. Which events are meant?`,
    );
  return qs;
}
