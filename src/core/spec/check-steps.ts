/**
 * Validation of the step list: names, tools, args as JSON, and every template in the args.
 *
 * A template may read the event, the output of an EARLIER step and declared sources; `env.NAME`
 * only when NAME is in the spec's `env` allow-list, and a secret env name only as a whole value
 * (its value is recorded as a keyed hash, so it cannot be put into text). Never resolves a
 * template or calls a tool.
 */
import { checkJsonValue } from './check-json-value.ts';
import { checkToolArgs, type ToolSchemas } from './check-tool-args.ts';
import type { FlowStep } from './flow-steps.ts';
import { isModelSlot, MODEL_SLOT_KEY } from './model-slots.ts';
import type { PathSegment } from './read-path.ts';
import type { TemplateRef } from './scan-templates.ts';
import { isSecretEnvName } from './secret-env.ts';
import {
  checkKeys,
  expectMapping,
  field,
  isMapping,
  isNear,
  readString,
  type SpecChecker,
} from './spec-checker.ts';
import { describeValue } from './spec-problem.ts';
import { forEachTemplateString } from './template-refs.ts';
import { checkWait, isWaitStep } from './wait-step.ts';
import type { SpecOptions } from './workflow-spec.ts';

const STEP_KEYS = ['name', 'tool', 'args'] as const;
const STEP_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function checkSteps(
  c: SpecChecker,
  raw: unknown,
  env: readonly string[],
  options: SpecOptions,
): FlowStep[] {
  if (raw === undefined) {
    c.missing(['steps'], 'a non-empty list of steps');
    return [];
  }
  if (!Array.isArray(raw) || raw.length === 0) {
    c.report(
      ['steps'],
      `expected a non-empty list of steps, got ${Array.isArray(raw) ? 'an empty list' : describeValue(raw)}`,
    );
    return [];
  }
  const names = stepNames(c, raw);
  // Templates are checked against the names as written, so one bad name is reported once, not per reader.
  const declared = raw.map((s) => (isMapping(s) && typeof s.name === 'string' ? s.name : undefined));
  const steps: FlowStep[] = [];
  // The schemas of each earlier step's tool, for the types of templates reading its output.
  const earlier = new Map<string, ToolSchemas | undefined>();
  raw.forEach((s, i) => {
    const path = ['steps', i];
    const obj = expectMapping(c, s, path);
    if (!obj) return;
    const name = names[i];
    if (isWaitStep(obj)) {
      // A wait (wait-step.ts): its `until` reads earlier steps as an argument's templates do.
      const wait = checkWait(c, obj, path, (ref) => refProblem(ref, i, declared, env));
      if (name !== undefined && wait) steps.push({ name, wait });
      return;
    }
    checkKeys(c, obj, path, STEP_KEYS);
    const tool = readString(c, obj, [...path, 'tool'], { what: 'a tool name' });
    if (tool !== undefined && options.knownTool && !options.knownTool(tool)) {
      c.report([...path, 'tool'], `unknown tool ${JSON.stringify(tool)}`);
    }
    const args = checkArgs(c, field(obj, 'args'), i, declared, env, options.isSecretEnv ?? isSecretEnvName);
    const before = c.found;
    if (args !== undefined) checkModelSlots(c, args, ['steps', i, 'args'], options);
    const schemas = tool === undefined ? undefined : options.describeTool?.(tool);
    // Against the tool's schema only args that are otherwise sound: one problem per mistake.
    if (args !== undefined && tool !== undefined && schemas && c.found === before)
      checkToolArgs(c, args, { index: i, tool, schemas, earlier });
    if (name !== undefined) earlier.set(name, schemas);
    if (name !== undefined && tool !== undefined && args !== undefined) steps.push({ name, tool, args });
  });
  return steps;
}

/** Valid step names by index (undefined where invalid); reports bad and duplicate names. */
function stepNames(c: SpecChecker, raw: unknown[]): (string | undefined)[] {
  const first = new Map<string, number>();
  return raw.map((s, i) => {
    if (!isMapping(s)) return undefined;
    const name = readString(c, s, ['steps', i, 'name'], {
      what: 'a step name of letters, digits and _ (not starting with a digit)',
      pattern: STEP_NAME,
    });
    if (name === undefined) return undefined;
    const prev = first.get(name);
    if (prev !== undefined) {
      c.report(['steps', i, 'name'], `duplicate step name "${name}" (also steps[${prev}])`);
      return undefined;
    }
    first.set(name, i);
    return name;
  });
}

function checkArgs(
  c: SpecChecker,
  raw: unknown,
  index: number,
  names: readonly (string | undefined)[],
  env: readonly string[],
  isSecret: (name: string) => boolean,
): Record<string, unknown> | undefined {
  const path: PathSegment[] = ['steps', index, 'args'];
  if (raw === undefined) return {};
  const obj = expectMapping(c, raw, path);
  if (!obj) return undefined;
  const before = c.found;
  const args = checkJsonValue(c, obj, path) as Record<string, unknown>;
  if (c.found > before) return undefined;
  forEachTemplateString(args, (at, parts) => {
    const whole = parts.length === 1;
    for (const p of parts) {
      const where = [...path, ...at];
      if (p.kind === 'invalid') c.report(where, `invalid template "{{ ${p.path} }}": ${p.message}`);
      if (p.kind !== 'template') continue;
      const why = refProblem(p.ref, index, names, env) ?? secretInText(p.ref, whole, isSecret);
      if (why) c.report(where, `template "{{ ${p.path} }}": ${why}`);
    }
  });
  return args;
}

const SLOT_SHAPE = '{"$model": {"prompt": "<text>", "schema": {<JSON Schema>}}}';

/**
 * Model slots: only a whole top-level argument may be open, in exactly the slot shape; the
 * caller's `checkModelSlot` (e.g. "no model provider", "schema does not compile") judges the rest.
 */
function checkModelSlots(
  c: SpecChecker,
  args: Record<string, unknown>,
  path: PathSegment[],
  options: SpecOptions,
): void {
  for (const arg of Object.keys(args).sort()) {
    const v = args[arg];
    const at = [...path, arg];
    if (isMapping(v) && Object.hasOwn(v, MODEL_SLOT_KEY)) {
      if (!isModelSlot(v)) {
        c.report(at, `a model slot is written ${SLOT_SHAPE}, and nothing else`);
        continue;
      }
      const why = options.checkModelSlot?.({ arg, prompt: v.$model.prompt, schema: v.$model.schema });
      if (why) c.report(at, why);
    } else {
      reportNestedSlots(c, v, at);
    }
  }
}

function reportNestedSlots(c: SpecChecker, v: unknown, at: PathSegment[]): void {
  if (Array.isArray(v)) {
    v.forEach((x, i) => {
      reportNestedSlots(c, x, [...at, i]);
    });
    return;
  }
  if (!isMapping(v)) return;
  if (Object.hasOwn(v, MODEL_SLOT_KEY)) {
    c.report(at, 'a model slot must be a whole top-level argument of the step');
    return;
  }
  for (const k of Object.keys(v).sort()) reportNestedSlots(c, v[k], [...at, k]);
}

/**
 * A secret env value is recorded as a keyed hash and handed to the tool as its clear value only
 * at the call, so it can be a whole argument value but never part of a text.
 */
function secretInText(
  ref: TemplateRef,
  whole: boolean,
  isSecret: (name: string) => boolean,
): string | undefined {
  if (whole || ref.root !== 'source' || ref.ref.source !== 'env') return undefined;
  const name = ref.ref.name ?? '';
  if (!isSecret(name)) return undefined;
  return `env.${name} is a secret (its name marks it as one), and a secret cannot be put into text: Keel records only its keyed hash, and the tool receives the value at the call. Pass it as the whole value ("{{env.${name}}}") of its own argument and let the tool build the text (e.g. the "Bearer " prefix)`;
}

function refProblem(
  ref: TemplateRef,
  index: number,
  names: readonly (string | undefined)[],
  env: readonly string[],
): string | undefined {
  if (ref.root === 'source' && ref.ref.source === 'env') {
    const name = ref.ref.name ?? '';
    return env.includes(name)
      ? undefined
      : `env.${name} is not allowed; add "${name}" to the spec's env list`;
  }
  if (ref.root !== 'step') return undefined;
  const at = names.indexOf(ref.step);
  if (at === index) return 'a step cannot read its own output';
  if (at > index)
    return `step "${ref.step}" runs later (steps[${at}]); only earlier steps' output can be read`;
  if (at >= 0) return undefined;
  const near = names.slice(0, index).find((n) => n !== undefined && isNear(n, ref.step));
  return `no step named "${ref.step}"${near ? `; did you mean "${near}"?` : ''}`;
}
