/**
 * An event named by its verb instead of its noun: "new hire", "when somebody gets hired", "on hire",
 * "all leavers", "someone leaving", "shipments", "returns", "when something ships". A word names an
 * event type's verb when one of its plain forms is the verb's (hire, hires, hiring for hired), when
 * it is the verb's doer or result noun (leaver for leaving, shipment for shipped), or when it is a
 * verb of the same small group (starter, joiner for hired; departs, left for leaving), or its act
 * said as a noun (cancellation for cancelled, escalation for escalated, approval for approved). Pure helpers;
 * read-trigger.ts takes the event only when exactly one of the catalog's fits, under "Assumed".
 */
import type { EventShape } from '../compiled-request.ts';
import { lemmas } from '../request-words.ts';

/**
 * Verbs that name the same event, whichever the event type spells: a new person "hired", "joined",
 * "started", "onboarded"; one "leaving", "left", "departed", "quit", "offboarded"; an order
 * "shipped", "dispatched". Plain forms only; each is read with its other forms and its doer.
 */
const SAME_EVENT_VERBS: readonly (readonly string[])[] = [
  ['hire', 'join', 'start', 'onboard'],
  ['leave', 'left', 'depart', 'quit', 'offboard'],
  ['ship', 'dispatch'],
];

/** The plain forms a word may stand for as a verb: its lemmas, and those of its doer or result noun. */
export function verbFormsOf(w: string): string[] {
  const out = new Set<string>();
  const addAll = (x: string) => {
    for (const l of lemmas(x)) {
      out.add(l);
      // "shipments" -> shipment -> ship: the noun's own plain forms too.
      for (const m of lemmas(l)) out.add(m);
    }
  };
  addAll(w);
  // "leaver(s)", "starter(s)", "joiner(s)", "shipper": the doer of the verb.
  const one = /[^s]s$/.test(w) ? w.slice(0, -1) : w;
  if (/[a-z]{3,}er$/.test(one)) {
    addAll(one.slice(0, -1)); // leaver -> leave
    const stem = one.slice(0, -2); // starter -> start
    addAll(stem);
    if (/(.)\1$/.test(stem)) addAll(stem.slice(0, -1)); // shipper -> ship
  }
  // "cancellations", "escalations", "deletions", "submissions", "approvals", "renewals": the
  // verb's act, said as a noun.
  const act = /[^s]s$/.test(w) ? w.slice(0, -1) : w;
  const ation = /^([a-z]{3,}?)(l?)ation$/.exec(act);
  if (ation)
    for (const x of [ation[1]!, `${ation[1]}${ation[2]}`, `${ation[1]}ate`, `${ation[1]}e`]) addAll(x);
  else if (/[a-z]{3,}tion$/.test(act)) for (const x of [act.slice(0, -3), `${act.slice(0, -3)}e`]) addAll(x);
  if (/[a-z]{3,}ssion$/.test(act)) addAll(`${act.slice(0, -5)}t`);
  if (/[a-z]{4,}al$/.test(act)) for (const x of [act.slice(0, -2), `${act.slice(0, -2)}e`]) addAll(x);
  return [...out].filter((f) => f.length >= 3);
}

/** The plain forms of an event type's verb ("hired": hire), with the verbs of its group. */
function eventVerbForms(shape: EventShape): string[] {
  const verb = verbOf(shape.type);
  const own = lemmas(verb).filter((f) => f.length >= 3);
  const group = SAME_EVENT_VERBS.find((g) => g.some((v) => own.includes(v))) ?? [];
  return [...new Set([...own, ...group])];
}

/** Whether `w` names the event's verb: a form of it, its doer, or a verb of its group. */
export function namesEventVerb(w: string, shape: EventShape): boolean {
  if (w.length < 3 || w === 'new') return false;
  const event = eventVerbForms(shape);
  return verbFormsOf(w).some((f) => event.includes(f));
}

/**
 * The events a trigger names by their verb when none fits its noun and verb together: "new hire",
 * "when somebody gets hired", "all leavers", "shipments" (a form of the verb, its doer, or a verb of
 * its group: event-verb-forms.ts). A noun the clause gives narrows them to that noun's events; a verb
 * it says of its own ("comes back from leave": arrival) keeps only events of that verb's group.
 */
export function eventByVerb(
  words: readonly string[],
  nounLemmas: ReadonlySet<string>,
  saidGroup: readonly string[] | undefined,
  events: readonly EventShape[],
): EventShape[] {
  const ofNoun = events.filter((e) =>
    nounOf(e.type)
      .split(/[_-]/)
      .some((n) => lemmas(n).some((l) => nounLemmas.has(l))),
  );
  const pool = ofNoun.length > 0 ? ofNoun : events;
  return pool.filter((e) => {
    const verb = verbOf(e.type);
    if (saidGroup && !saidGroup.includes(verb) && !lemmas(verb).some((v) => saidGroup.includes(v)))
      return false;
    return words.some((w) => namesEventVerb(w, e));
  });
}

/** An event type's verb and noun ("employee.hired": hired, employee), as trigger-words.ts splitType. */
const verbOf = (type: string) => (type.includes('.') ? type.slice(type.lastIndexOf('.') + 1) : '');
const nounOf = (type: string) => (type.includes('.') ? type.slice(0, type.lastIndexOf('.')) : type);
