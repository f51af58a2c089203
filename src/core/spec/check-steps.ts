/**
 * Validation of one tool step: its tool, args as JSON, and every template in the args (the list
 * and its control flow are check-flow.ts's).
 *
 * A template may read the event, the output of an EARLIER step and declared sources; `env.NAME`
 * only when NAME is in the spec's `env` allow-list, and a secret env name only as a whole value
 * (its value is recorded as a keyed hash, so it cannot be put into text). Never resolves a
 * template or calls a tool.
 */
import { checkApprovalDeadline } from './approval-deadline.ts';
import { checkJsonValue } from './check-json-value.ts';
import { checkToolArgs, type ToolSchemas } from './check-tool-args.ts';
import type { StepSpec } from './flow-steps.ts';
import { isModelSlot, MODEL_SLOT_KEY } from './model-slots.ts';
import type { PathSegment } from './read-path.ts';
import { type TemplateRef, unknownRootMessage } from './scan-templates.ts';
import { isSecretEnvName } from './secret-env.ts';
import { checkKeys, expectMapping, field, isMapping, readString, type SpecChecker } from './spec-checker.ts';
import { forEachTemplateString } from './template-refs.ts';
import type { SpecOptions } from './workflow-spec.ts';

const STEP_KEYS = ['name', 'tool', 'args', 'if', 'approval'] as const;

/** What checking one tool step needs from the document around it. */
export interface ToolStepContext {
  readonly env: readonly string[];
  readonly options: SpecOptions;
  /** Why this step cannot read step `name`'s output, or undefined when it can. */
  readonly readProblem: (name: string) => string | undefined;
  /** The schemas of each earlier tool step's tool, for the types of templates reading its output. */
  readonly earlier: Map<string, ToolSchemas | undefined>;
  /** Inside a forEach: the name its item is read by (`as:`); no other item root is known. */
  readonly item?: string;
  /** Checks the step's `if:` (parse, and what it reads); its problems are on `<path>.if`. */
  readonly checkIf: (src: string, path: PathSegment[]) => void;
}

/** One tool step at `path` (`name` already checked by the layout); undefined when it has problems. */
export function checkToolStep(
  c: SpecChecker,
  obj: Record<string, unknown>,
  path: PathSegment[],
  name: string | undefined,
  t: ToolStepContext,
): StepSpec | undefined {
  const { options } = t;
  checkKeys(c, obj, path, STEP_KEYS);
  const tool = readString(c, obj, [...path, 'tool'], { what: 'a tool name' });
  if (tool !== undefined && options.knownTool && !options.knownTool(tool)) {
    c.report([...path, 'tool'], `unknown tool ${JSON.stringify(tool)}`);
  }
  const cond = readString(c, obj, [...path, 'if'], { what: 'a condition', optional: true });
  if (cond !== undefined) t.checkIf(cond, [...path, 'if']);
  const approvalRaw = field(obj, 'approval');
  const approval = checkApprovalDeadline(c, approvalRaw, [...path, 'approval']);
  const args = checkArgs(c, field(obj, 'args'), path, t, options.isSecretEnv ?? isSecretEnvName);
  const before = c.found;
  if (args !== undefined) checkModelSlots(c, args, [...path, 'args'], options);
  const schemas = tool === undefined ? undefined : options.describeTool?.(tool);
  // Against the tool's schema only args that are otherwise sound: one problem per mistake.
  if (args !== undefined && tool !== undefined && schemas && c.found === before)
    checkToolArgs(c, args, { at: path, tool, schemas, earlier: t.earlier });
  if (name !== undefined) t.earlier.set(name, schemas);
  if (name === undefined || tool === undefined || args === undefined) return undefined;
  if (approvalRaw !== undefined && approval === undefined) return undefined;
  return {
    name,
    tool,
    args,
    ...(cond === undefined ? {} : { if: cond }),
    ...(approval === undefined ? {} : { approval }),
  };
}

function checkArgs(
  c: SpecChecker,
  raw: unknown,
  stepPath: PathSegment[],
  t: ToolStepContext,
  isSecret: (name: string) => boolean,
): Record<string, unknown> | undefined {
  const path: PathSegment[] = [...stepPath, 'args'];
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
      const why = refProblem(p.ref, t) ?? secretInText(p.ref, whole, isSecret);
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

function refProblem(ref: TemplateRef, t: ToolStepContext): string | undefined {
  if (ref.root === 'source' && ref.ref.source === 'env') {
    const name = ref.ref.name ?? '';
    return t.env.includes(name)
      ? undefined
      : `env.${name} is not allowed; add "${name}" to the spec's env list`;
  }
  if (ref.root === 'item') return ref.name === t.item ? undefined : unknownRootMessage(ref.name);
  if (ref.root !== 'step') return undefined;
  return t.readProblem(ref.step);
}
