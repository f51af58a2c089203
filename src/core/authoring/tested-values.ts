/**
 * Values the tenant's own workflows test, added to the event shapes a draft is compiled against:
 * `payload.plan == "enterprise"` in a trigger's `when` (or a step's test, when the workflow has one
 * trigger event) says `enterprise` is a plan those events carry, though no sample event shows it.
 * Only for a field sample events show short text values for: a workflow never adds a field or an
 * event type, and a field samples show no such value for (an id, a number, free text) or whose
 * values would grow past what samples keep gets none. Pure.
 */
import { allSteps, type FlowStep, isChooseStep, isToolStep } from '../spec/flow-steps.ts';
import type { EventShape } from './compiled-request.ts';
import { MAX_VALUES, VALUE } from './event-shapes-of.ts';
import { cmp } from './grammar/request-context.ts';
import { comparisonsOf, payloadField } from './test-comparisons.ts';

/** The parts of a workflow spec read here (a spec, or any object of that shape: nothing else is trusted). */
export interface TestedSpec {
  readonly triggers?: readonly { readonly event?: unknown; readonly when?: unknown }[];
  readonly steps?: readonly FlowStep[];
}

/** Every condition text of a flow: tool steps' `if`, choices' `when`, nested lists included. */
function stepTests(steps: readonly FlowStep[]): string[] {
  return allSteps(steps).flatMap((s) => {
    if (isToolStep(s)) return typeof s.if === 'string' ? [s.if] : [];
    return isChooseStep(s) ? s.choose.map((b) => b.when).filter((w) => typeof w === 'string') : [];
  });
}

export function withTestedValues(shapes: readonly EventShape[], specs: readonly TestedSpec[]): EventShape[] {
  const added = new Map<string, Map<string, Set<string>>>();
  for (const spec of specs) {
    const triggers = (Array.isArray(spec.triggers) ? spec.triggers : []).filter(
      (t): t is { event: string; when?: unknown } => typeof t?.event === 'string',
    );
    const types = [...new Set(triggers.map((t) => t.event))];
    const tests = triggers.map((t) => ({ type: t.event, text: typeof t.when === 'string' ? t.when : '' }));
    // (A step's test reads the payload of whichever event started the run: only one type is sure.)
    if (types.length === 1 && Array.isArray(spec.steps))
      tests.push(...stepTests(spec.steps).map((text) => ({ type: types[0]!, text })));
    for (const { type, text } of tests)
      for (const c of comparisonsOf(text)) {
        // (Equal or not, under a "not" or an "or": each is a value the field is tested for.)
        const field = payloadField(c);
        if (field === undefined || (c.op !== '==' && c.op !== '!=')) continue;
        if (typeof c.value !== 'string' || !VALUE.test(c.value)) continue;
        const byField = added.get(type) ?? new Map<string, Set<string>>();
        byField.set(field, (byField.get(field) ?? new Set<string>()).add(c.value));
        added.set(type, byField);
      }
  }
  return shapes.map((shape) => {
    const more = added.get(shape.type);
    if (!more) return shape;
    const values: Record<string, readonly string[]> = { ...(shape.values ?? {}) };
    for (const [field, vs] of more) {
      // (A field samples show no short text values for is an id, a number or free text: none.)
      if (!shape.payload.includes(field) || !shape.values?.[field]) continue;
      const all = new Set([...(values[field] ?? []), ...vs]);
      if (all.size <= MAX_VALUES) values[field] = [...all].sort(cmp);
    }
    return Object.keys(values).length ? { ...shape, values } : shape;
  });
}
