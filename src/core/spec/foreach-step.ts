/**
 * A bounded iteration: `forEach: { items, as, max }` with a body of tool steps run once per item of
 * a list the event or an earlier step gives, in order, never more than `max` times.
 *
 * ```yaml
 * - name: refund_lines
 *   forEach: { items: "{{ event.payload.lines }}", as: line, max: 20 }
 *   steps:
 *     - { name: refund, tool: issue_refund, args: { amount: "{{ line.amount }}" } }
 * ```
 *
 * Owns the shape, the strict check of the `forEach:` mapping (every problem named by its field
 * path, an unknown key refused) and the names an iteration's steps are recorded under
 * (`refund_lines[0].refund`). The body's steps are checked as tool steps by check-flow.ts; the
 * walk is engine/foreach-step.ts. Pure: nothing here resolves a template or reads a value.
 */
import type { ForEachSpec, ForEachStepSpec } from './flow-steps.ts';
import type { PathSegment } from './read-path.ts';
import { scanTemplates, type TemplateRef } from './scan-templates.ts';
import { checkKeys, expectMapping, field, isMapping, readString, type SpecChecker } from './spec-checker.ts';
import { describeValue } from './spec-problem.ts';

/** The most iterations any loop may declare: a run takes at most 1,000 steps in all. */
export const MAX_FOREACH_ITEMS = 100;

export const FOREACH_STEP_KEYS = ['name', 'forEach', 'steps'] as const;
const FOREACH_KEYS = ['items', 'as', 'max'] as const;
const ITEM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Names an item may not take: the template roots (a loop item named `event` would hide the event)
 * and the condition roots (so a later condition language reading items stays unambiguous).
 */
export const RESERVED_ITEM_NAMES: readonly string[] = [
  'event',
  'steps',
  'env',
  'clock',
  'random',
  'id',
  'payload',
  'subject',
  'type',
  'source',
  'tenant',
  'time',
];

/** Whether a step (as written, or as validated) is a loop: it has a `forEach` key. */
export function isForEachStep(step: unknown): step is ForEachStepSpec {
  return isMapping(step) && Object.hasOwn(step, 'forEach');
}

/** The name an iteration's step is recorded under: `refund_lines[0].refund`. */
export function iterationStepId(loop: string, index: number, step: string): string {
  return `${loop}[${index}].${step}`;
}

const ITERATION_ID = /^([A-Za-z_][A-Za-z0-9_]*)\[(0|[1-9][0-9]{0,8})\]\.([A-Za-z_][A-Za-z0-9_]*)$/;

/** The loop, index and body step an iteration's step id names, or undefined for any other id. */
export function parseIterationStepId(
  id: string,
): { readonly loop: string; readonly index: number; readonly step: string } | undefined {
  const m = ITERATION_ID.exec(id);
  return m ? { loop: m[1]!, index: Number(m[2]), step: m[3]! } : undefined;
}

/**
 * A loop's output while and after it runs: one object per item, each holding the outputs of that
 * iteration's steps by body step name (`steps.refund_lines.output[0].refund`). The fold and verify
 * both keep it this way, from `foreach.started` and each iteration's `step.completed`.
 */
export function emptyLoopOutput(count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, () => ({}));
}

/**
 * Files an iteration step's output into its loop's output (in `outputs`, keyed by step id) when
 * `id` names one; true when it did.
 */
export function fileIterationOutput(outputs: Record<string, unknown>, id: string, output: unknown): boolean {
  const it = parseIterationStepId(id);
  if (!it) return false;
  const list = outputs[it.loop];
  if (!Array.isArray(list) || !isMapping(list[it.index])) return false;
  (list[it.index] as Record<string, unknown>)[it.step] = output;
  return true;
}

/**
 * Checks a loop's `forEach:` mapping (`name` is checked with every step's, `steps` by
 * check-flow.ts): `items` one whole template that `refProblem` accepts (the event or an earlier
 * step; never a source), `as` a name no root uses, `max` a whole number from 1 to
 * MAX_FOREACH_ITEMS.
 */
export function checkForEach(
  c: SpecChecker,
  step: Record<string, unknown>,
  path: readonly PathSegment[],
  refProblem: (ref: TemplateRef) => string | undefined,
): ForEachSpec | undefined {
  const at = [...path, 'forEach'];
  const raw = field(step, 'forEach');
  if (raw === undefined) {
    c.missing(at, 'a mapping with items, as and max');
    return undefined;
  }
  const f = expectMapping(c, raw, at);
  if (!f) return undefined;
  checkKeys(c, f, at, FOREACH_KEYS);
  const before = c.found;
  const items = readString(c, f, [...at, 'items'], {
    what: 'one template naming a list, like "{{ event.payload.lines }}"',
  });
  if (items !== undefined) {
    const { parts, whole } = scanTemplates(items);
    const only = parts[0];
    if (!whole || only === undefined || only.kind === 'text')
      c.report(
        [...at, 'items'],
        `expected one template naming a list, like "{{ event.payload.lines }}", got ${describeValue(items)}`,
      );
    else if (only.kind === 'invalid')
      c.report([...at, 'items'], `invalid template "{{ ${only.path} }}": ${only.message}`);
    else {
      const ref = only.ref;
      const why =
        ref.root === 'source'
          ? `${only.path} is a source; a loop runs over a list the event or an earlier step gives`
          : ref.root === 'item'
            ? `"${ref.name}" is not the event or a step; a loop runs over a list the event (event.payload.<field>) or an earlier step (steps.<name>.output.<field>) gives`
            : refProblem(ref);
      if (why) c.report([...at, 'items'], `template "{{ ${only.path} }}": ${why}`);
    }
  }
  const as = readString(c, f, [...at, 'as'], {
    what: 'the name the body reads the current item by (letters, digits and _, not starting with a digit)',
    pattern: ITEM_NAME,
  });
  if (as !== undefined && as in Object.prototype)
    c.report([...at, 'as'], `"${as}" is a name every object has; name the item otherwise, like "line"`);
  else if (as !== undefined && RESERVED_ITEM_NAMES.includes(as))
    c.report(
      [...at, 'as'],
      `"${as}" is a name templates or conditions already read (${RESERVED_ITEM_NAMES.join(', ')}); name the item otherwise, like "line"`,
    );
  const max = readMax(c, f, [...at, 'max']);
  if (c.found > before || items === undefined || as === undefined || max === undefined) return undefined;
  return { items, as, max };
}

function readMax(c: SpecChecker, f: Record<string, unknown>, path: PathSegment[]): number | undefined {
  const v = field(f, 'max');
  const what = `the most items the loop takes: a whole number from 1 to ${MAX_FOREACH_ITEMS}`;
  if (v === undefined) {
    c.missing(path, what);
    return undefined;
  }
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1 || v > MAX_FOREACH_ITEMS) {
    c.report(path, `expected ${what}, got ${describeValue(v)}`);
    return undefined;
  }
  return v;
}

/** The declared `max` of a raw loop step when it is a sound one (for the layout's step count), else 1. */
export function declaredMax(step: Record<string, unknown>): number {
  const f = field(step, 'forEach');
  const v = isMapping(f) ? field(f, 'max') : undefined;
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 && v <= MAX_FOREACH_ITEMS ? v : 1;
}
