/**
 * "deny fraud claims", "cancel duplicate claims": a value an argument takes, said of the events
 * themselves (just before their noun, said as many), says which events are meant when no field of theirs holds
 * it. Read as the argument's value alone, the tool would act on every event ("deny every claim, as
 * fraud"): for a tool that destroys or moves money, asked instead. Pure but for the question.
 */
import type { ToolDescriptor } from '../../tools/tool-descriptor.ts';
import type { EventShape } from '../compiled-request.ts';
import { CLASSIFIES } from './class-fields.ts';
import { isEventNoun } from './read-field-tests.ts';
import type { RequestContext } from './request-context.ts';

/** Whether `value` (of `tool`'s `arg`) is said of the events in `text`: then it asked, and the caller sets no value. */
export function askValueOfEvents(
  value: string,
  arg: string,
  text: string,
  tool: ToolDescriptor,
  shape: EventShape | undefined,
  ctx: RequestContext,
): boolean {
  if (!shape || !(tool.destructive || tool.cost?.fromArg !== undefined)) return false;
  const m = new RegExp(`\\b${value.replace(/[^a-z0-9]/gi, '.')}\\s+([a-z]+)`, 'i').exec(text);
  // The events as many ("fraud claims"), never the thing a tool gives ("grant read access").
  if (!m || !/[^s]s$/.test(m[1]!) || !isEventNoun(m[1]!, shape)) return false;
  // A value some field of the events shows is a test the field readers make, not this.
  if (Object.values(shape.values ?? {}).some((vs) => vs.includes(value))) return false;
  ctx.questions.push({
    about: `args: ${tool.name}.${arg}`,
    question: `"${m[0]}": are only some ${shape.type} events "${value}" ones? No field of the event says so, and ${tool.name} would act on every one, with ${arg} "${value}". Which test is meant, or is every one meant?`,
  });
  return true;
}

/**
 * "production viewer requests ... get granted": a value of a field the event carries, whose samples
 * show others the enum takes (one domain: not an alert's "critical" beside "sev1"), is said of the
 * events (a test) or for every one (this value): asked, never guessed. So is a class said before
 * the events' own noun ("approve travel expense under $300"), of a classifying field the event
 * carries and no sample shows: set for every one, it would overwrite each one's own class. True
 * when it asked.
 */
export function askTestOrSet(
  hit: string,
  arg: string,
  values: readonly unknown[],
  text: string,
  tool: ToolDescriptor,
  shape: EventShape | undefined,
  ctx: RequestContext,
): boolean {
  if (!shape?.payload.includes(arg)) return false;
  const seen = shape.values?.[arg] ?? [];
  const oneDomain = seen.length > 0 && seen.every((v) => values.includes(v)) && !seen.includes(hit);
  const noun = shape.type.split('.')[0]!;
  const ofTheEvents =
    seen.length === 0 &&
    CLASSIFIES.test(arg) &&
    new RegExp(String.raw`\b${hit.replace(/[^a-z0-9]/gi, '.')}\s+${noun}\b`, 'i').test(text);
  if (!oneDomain && !ofTheEvents) return false;
  const event = shape.type;
  ctx.questions.push({
    about: `args: ${tool.name}.${arg}`,
    question: `Is "${hit}" the ${arg} of the ${event} events this workflow acts on (a test of the event's ${arg}), or the ${arg} ${tool.name} should use for every one of them?`,
    candidates: [`only ${event} events whose ${arg} is "${hit}"`, `${arg} "${hit}" for every event`],
  });
  return true;
}
