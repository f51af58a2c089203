/**
 * A value the words give a step that is also a value the trigger event carries in a field the
 * draft never tests, said as what happened to the events ("posts reported as spam get hidden",
 * "flagged as fraud"): hide_post's reason "spam", while "spam" is a category the post.reported
 * events show. The words may mean only spam posts (a test of category) or every post hidden as
 * spam: asked, never guessed, for the one reading hides every post. Said with the action ("build
 * it as JSON"), or with a field the draft tests or reads, it is no question.
 */
import { lemmas } from '../request-words.ts';
import { classValues } from './class-fields.ts';
import { readsField } from './read-coverage.ts';
import { asLiteral, type DraftStep, type RequestContext } from './request-context.ts';
import { toolWords } from './tool-words.ts';

export function askEventValueArgs(
  text: string,
  steps: readonly DraftStep[],
  event: string | undefined,
  drafted: string,
  ctx: RequestContext,
): void {
  const shape = ctx.events?.find((e) => e.type === event);
  if (!shape) return;
  // The values each field is known to hold: its samples', or the classes it is read as holding.
  const held = shape.payload.map((field) => ({
    field,
    values: [...(shape.values?.[field] ?? []), ...classValues(field, shape, ctx)].map((x) => x.toLowerCase()),
  }));
  for (const s of steps)
    for (const [arg, v] of Object.entries(s.step.args)) {
      if (typeof v !== 'string' || v.includes('{{')) continue;
      const value = v.toLowerCase();
      const hit = held.find((h) => h.values.includes(value) && !readsField(drafted, h.field));
      if (!hit) continue;
      // "reported as spam": a past form no step's tool is named by, then "as" or "for".
      const said = new RegExp(String.raw`\b([a-z]+ed)\s+(?:as|for)\s+(?:an?\s+)?${asLiteral(value)}\b`).exec(
        text,
      );
      if (!said || lemmas(said[1]!).some((l) => toolWords(s.tool).name.has(l))) continue;
      ctx.questions.push({
        about: 'triggers.when',
        question: `"${v}" is a ${hit.field} the ${shape.type} events carry, and the draft gives it to ${s.tool.name}'s ${arg} without testing ${hit.field}. Should the workflow run only for ${hit.field} ${v}, or for every ${shape.type} event with ${arg} ${v}?`,
      });
      return;
    }
}

/** Verbs of a tool that makes or sends the thing its name says (build_export, open_incident, send_payout). */
const MAKES = new Set([
  'build',
  'create',
  'make',
  'generate',
  'open',
  'raise',
  'produce',
  'prepare',
  'compile',
  // ("send an instant payout": the payout sent is instant, or only instant requests are paid?)
  'send',
  'issue',
]);

export function askMadeValues(
  text: string,
  steps: readonly DraftStep[],
  event: string | undefined,
  when: readonly string[],
  ctx: RequestContext,
): void {
  const tested = when.join(' ');
  for (const s of steps) {
    const [verb, ...made] = s.tool.name.toLowerCase().split('_');
    if (verb === undefined || !MAKES.has(verb) || made.length === 0) continue;
    for (const [arg, schema] of Object.entries(s.tool.args.properties ?? {})) {
      const values = (schema as { enum?: unknown[] }).enum ?? [];
      for (const v of values) {
        if (typeof v !== 'string' || s.step.args[arg] === v) continue;
        const field = new RegExp(String.raw`payload\.([a-z0-9_]+) == "${asLiteral(v)}"`, 'i').exec(
          tested,
        )?.[1];
        if (field === undefined) continue;
        const before = new RegExp(String.raw`\b${asLiteral(v.toLowerCase())}[- ]([a-z]+)\b`, 'g');
        // ("instant payout requests": the noun heads the events, not what is sent.)
        const ofMade = [...text.matchAll(before)].filter(
          (m) =>
            lemmas(m[1]!).some((l) => made.includes(l)) &&
            !/^\s+(?:requests?|requested|events?|ones?)\b/.test(text.slice(m.index + m[0].length)),
        );
        // ("json requests: ... build a json export": said of the events too, the test is theirs.)
        const said = [...text.matchAll(new RegExp(String.raw`\b${asLiteral(v.toLowerCase())}\b`, 'g'))]
          .length;
        if (ofMade.length === 0 || said > ofMade.length) continue;
        ctx.questions.push({
          about: 'triggers.when',
          question: `"${v}" is said of what ${s.tool.name} makes, and the draft tests the ${event} event's ${field} == "${v}" instead. Should ${s.tool.name}'s ${arg} be "${v}" for every event, or should the workflow run only for events whose ${field} is "${v}"?`,
        });
        return;
      }
    }
  }
}
