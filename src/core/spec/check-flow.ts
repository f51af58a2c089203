/**
 * Validation of the step list as a whole: each entry is a tool step (check-steps.ts), a choice
 * (`choose:` ordered branches, each `when:` a condition, and an optional `else:`) or a wait
 * (`wait:`, wait-step.ts), parallel branches (`parallel: {join, branches}`: each branch a list
 * of tool steps, run at the same time) or a bounded iteration (`forEach:` over a list, its body
 * tool steps, foreach-step.ts), nested lists
 * checked the same way, to a bounded depth. Names are unique across the whole document (the
 * layout, step-layout.ts); a condition (`if:`, `when:`) parses in the step-condition language and
 * reads only what is sure to have run before it. Every problem names its field path
 * (`steps[2].choose[0].when`). Never resolves a template, evaluates a condition or calls a tool.
 */
import { isKeelError } from '../errors.ts';
import { checkToolStep, type ToolStepContext } from './check-steps.ts';
import type { ToolSchemas } from './check-tool-args.ts';
import type {
  ChooseBranch,
  ChooseStepSpec,
  FlowStep,
  ForEachStepSpec,
  JoinRule,
  ParallelStepSpec,
  StepSpec,
} from './flow-steps.ts';
import { checkForEach, FOREACH_STEP_KEYS } from './foreach-step.ts';
import type { PathSegment } from './read-path.ts';
import { unknownRootMessage } from './scan-templates.ts';
import { checkKeys, expectMapping, field, isMapping, readString, type SpecChecker } from './spec-checker.ts';
import { describeValue } from './spec-problem.ts';
import { parseStepCondition, stepsReadBy } from './step-condition.ts';
import {
  conditionReadProblem,
  layOutSteps,
  type PlacedStep,
  type StepLayout,
  templateReadProblem,
} from './step-layout.ts';
import { checkWait, type WaitStepSpec } from './wait-step.ts';
import type { SpecOptions } from './workflow-spec.ts';

const CHOOSE_KEYS = ['name', 'choose', 'else'] as const;
const BRANCH_KEYS = ['when', 'steps'] as const;
const PARALLEL_STEP_KEYS = ['name', 'parallel'] as const;
const PARALLEL_KEYS = ['join', 'branches'] as const;
const JOIN_RULES: readonly JoinRule[] = ['all', 'first'];
const BRANCH_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The most branches one parallel step may have. */
export const MAX_PARALLEL_BRANCHES = 16;

export interface CheckedSteps {
  readonly steps: FlowStep[];
  /** Undefined when the list itself was not a non-empty list. */
  readonly layout: StepLayout | undefined;
}

export function checkSteps(
  c: SpecChecker,
  raw: unknown,
  env: readonly string[],
  options: SpecOptions,
): CheckedSteps {
  if (raw === undefined) {
    c.missing(['steps'], 'a non-empty list of steps');
    return { steps: [], layout: undefined };
  }
  if (!Array.isArray(raw) || raw.length === 0) {
    c.report(
      ['steps'],
      `expected a non-empty list of steps, got ${Array.isArray(raw) ? 'an empty list' : describeValue(raw)}`,
    );
    return { steps: [], layout: undefined };
  }
  const layout = layOutSteps(c, raw);
  const earlier = new Map<string, ToolSchemas | undefined>();
  const flow = new FlowChecker(c, layout, env, options, earlier);
  return { steps: flow.list(raw, ['steps']), layout };
}

class FlowChecker {
  constructor(
    private readonly c: SpecChecker,
    private readonly layout: StepLayout,
    private readonly env: readonly string[],
    private readonly options: SpecOptions,
    private readonly earlier: Map<string, ToolSchemas | undefined>,
  ) {}

  list(raw: readonly unknown[], base: PathSegment[]): FlowStep[] {
    const out: FlowStep[] = [];
    raw.forEach((s, i) => {
      const path = [...base, i];
      const obj = expectMapping(this.c, s, path);
      if (!obj) return;
      const placed = this.layout.of.get(obj);
      if (!placed) return;
      const step =
        placed.kind === 'choose'
          ? this.choose(obj, placed)
          : placed.kind === 'parallel'
            ? this.parallel(obj, placed)
            : placed.kind === 'wait'
              ? this.wait(obj, placed)
              : placed.kind === 'foreach'
                ? this.forEach(obj, placed)
                : this.tool(obj, placed);
      if (step) out.push(step);
    });
    return out;
  }

  private tool(obj: Record<string, unknown>, placed: PlacedStep, item?: string): StepSpec | undefined {
    const t: ToolStepContext = {
      env: this.env,
      options: this.options,
      earlier: this.earlier,
      readProblem: (name) => templateReadProblem(this.layout, placed, name),
      checkIf: (src, path) => this.condition(src, path, placed),
      ...(item === undefined ? {} : { item }),
    };
    return checkToolStep(this.c, obj, [...placed.path], placed.name, t);
  }

  /** A wait (wait-step.ts): its `until` reads what an argument's template may read. */
  private wait(obj: Record<string, unknown>, placed: PlacedStep): WaitStepSpec | undefined {
    const wait = checkWait(
      this.c,
      obj,
      [...placed.path],
      (ref) =>
        ref.root === 'step'
          ? templateReadProblem(this.layout, placed, ref.step)
          : ref.root === 'item'
            ? unknownRootMessage(ref.name)
            : undefined,
      (name) => conditionReadProblem(this.layout, placed, name),
    );
    return wait && placed.name !== undefined ? { name: placed.name, wait } : undefined;
  }

  /**
   * A loop (foreach-step.ts): its `forEach:` mapping, and its body, a non-empty list of tool steps
   * (no `if:`, no choice, wait or loop inside it yet), whose templates may read the item by `as`.
   */
  private forEach(obj: Record<string, unknown>, placed: PlacedStep): ForEachStepSpec | undefined {
    const c = this.c;
    const path = [...placed.path];
    const { tool: _tool, ...rest } = obj;
    checkKeys(c, rest, path, FOREACH_STEP_KEYS);
    if (Object.hasOwn(obj, 'tool'))
      c.report(
        [...path, 'tool'],
        'a step either calls a tool or loops (forEach:), not both; put the call in its steps',
        {
          at: 'key',
        },
      );
    const before = c.found;
    const spec = checkForEach(c, obj, path, (ref) =>
      ref.root === 'step' ? templateReadProblem(this.layout, placed, ref.step) : undefined,
    );
    const raw = field(obj, 'steps');
    const body: StepSpec[] = [];
    if (!Array.isArray(raw) || raw.length === 0) {
      if (raw === undefined)
        c.missing([...path, 'steps'], 'a non-empty list of tool steps, run once per item');
      else
        c.report(
          [...path, 'steps'],
          `expected a non-empty list of tool steps, run once per item, got ${Array.isArray(raw) ? 'an empty list' : describeValue(raw)}`,
        );
    } else {
      raw.forEach((s, i) => {
        const sp: PathSegment[] = [...path, 'steps', i];
        const o = expectMapping(c, s, sp);
        if (!o) return;
        const inner = this.layout.of.get(o);
        if (!inner) return;
        if (inner.kind !== 'tool') {
          const key = inner.kind === 'foreach' ? 'forEach' : inner.kind;
          c.report(
            [...sp, key],
            `a forEach's steps call tools; a ${key}: inside a loop is not supported yet`,
            {
              at: 'key',
            },
          );
          return;
        }
        if (Object.hasOwn(o, 'if')) {
          c.report(
            [...sp, 'if'],
            'a step inside a forEach cannot have an if: yet; every iteration runs every step',
            {
              at: 'key',
            },
          );
          return;
        }
        const step = this.tool(o, inner, spec?.as);
        if (step) body.push(step);
      });
    }
    if (c.found > before || placed.name === undefined || spec === undefined) return undefined;
    return { name: placed.name, forEach: spec, steps: body };
  }

  private choose(obj: Record<string, unknown>, placed: PlacedStep): ChooseStepSpec | undefined {
    const c = this.c;
    const path = [...placed.path];
    checkKeys(c, obj, path, CHOOSE_KEYS);
    if (Object.hasOwn(obj, 'tool'))
      c.report([...path, 'tool'], 'a step either calls a tool or chooses (choose:), not both', {
        at: 'key',
      });
    const before = c.found;
    const raw = field(obj, 'choose');
    const branches: ChooseBranch[] = [];
    if (!Array.isArray(raw) || raw.length === 0) {
      c.report(
        [...path, 'choose'],
        `expected a non-empty list of branches ({when, steps}), got ${Array.isArray(raw) ? 'an empty list' : describeValue(raw)}`,
      );
    } else {
      raw.forEach((b, j) => {
        const bp = [...path, 'choose', j];
        const branch = expectMapping(c, b, bp);
        if (!branch) return;
        checkKeys(c, branch, bp, BRANCH_KEYS);
        const when = readString(c, branch, [...bp, 'when'], { what: 'a condition' });
        if (when !== undefined) this.condition(when, [...bp, 'when'], placed);
        const steps = this.nested(field(branch, 'steps'), [...bp, 'steps'], true);
        if (when !== undefined && steps !== undefined) branches.push({ when, steps });
      });
    }
    const rawElse = field(obj, 'else');
    const otherwise = rawElse === undefined ? undefined : this.nested(rawElse, [...path, 'else'], false);
    if (c.found > before || placed.name === undefined) return undefined;
    return {
      name: placed.name,
      choose: branches,
      ...(otherwise === undefined ? {} : { else: otherwise }),
    };
  }

  /**
   * Parallel branches: `join` (all or first) and `branches`, a mapping of two or more named
   * branches, each a non-empty list of tool steps (no choice, wait or parallel inside one yet).
   */
  private parallel(obj: Record<string, unknown>, placed: PlacedStep): ParallelStepSpec | undefined {
    const c = this.c;
    const path = [...placed.path];
    checkKeys(c, obj, path, PARALLEL_STEP_KEYS);
    const before = c.found;
    const at = [...path, 'parallel'];
    const p = expectMapping(c, field(obj, 'parallel'), at);
    if (!p) return undefined;
    checkKeys(c, p, at, PARALLEL_KEYS);
    const join = field(p, 'join');
    if (join === undefined) c.missing([...at, 'join'], 'all or first');
    else if (!JOIN_RULES.includes(join as JoinRule))
      c.report([...at, 'join'], `expected all or first, got ${describeValue(join)}`);
    const raw = field(p, 'branches');
    const branches: Record<string, FlowStep[]> = {};
    const bp = [...at, 'branches'];
    if (raw === undefined) c.missing(bp, 'a mapping of two or more named branches, each a list of steps');
    else if (!isMapping(raw))
      c.report(bp, `expected a mapping of named branches, each a list of steps, got ${describeValue(raw)}`);
    else {
      const names = Object.keys(raw);
      if (names.length < 2 || names.length > MAX_PARALLEL_BRANCHES)
        c.report(bp, `expected 2 to ${MAX_PARALLEL_BRANCHES} branches, got ${names.length}`);
      for (const k of names) {
        const kp = [...bp, k];
        if (!BRANCH_NAME.test(k))
          c.report(kp, 'a branch name is letters, digits and _ (not starting with a digit)', { at: 'key' });
        const list = field(raw, k);
        if (!Array.isArray(list) || list.length === 0) {
          const got = Array.isArray(list) ? 'an empty list' : describeValue(list);
          c.report(kp, `expected a non-empty list of tool steps, got ${got}`);
          continue;
        }
        list.forEach((step, i) => {
          const kind = isMapping(step) ? this.layout.of.get(step)?.kind : undefined;
          if (kind !== undefined && kind !== 'tool')
            c.report(
              [...kp, i],
              `a parallel branch holds tool steps only (a ${kind === 'foreach' ? 'forEach' : kind} step cannot sit in one yet)`,
            );
        });
        const steps = this.nested(list, kp, true);
        if (steps !== undefined) branches[k] = steps;
      }
    }
    if (c.found > before || placed.name === undefined) return undefined;
    return { name: placed.name, parallel: { join: join as JoinRule, branches } };
  }

  /** A branch's (or else's) step list: a list, possibly empty (nothing runs). */
  private nested(raw: unknown, path: PathSegment[], required: boolean): FlowStep[] | undefined {
    if (raw === undefined && required) {
      this.c.missing(path, 'a list of steps (may be empty)');
      return undefined;
    }
    if (!Array.isArray(raw)) {
      this.c.report(path, `expected a list of steps (may be empty), got ${describeValue(raw)}`);
      return undefined;
    }
    // Lists nested past the depth bound were reported by the layout and are not placed.
    if (raw.some((s) => isMapping(s) && !this.layout.of.has(s))) return undefined;
    return this.list(raw, path);
  }

  /** A condition at `path`: it parses, and every step it reads is sure to have run before `at`. */
  private condition(src: string, path: PathSegment[], at: PlacedStep): void {
    try {
      const cond = parseStepCondition(src);
      for (const name of stepsReadBy(cond)) {
        const why = conditionReadProblem(this.layout, at, name);
        if (why) this.c.report(path, `reads steps.${name}: ${why}`);
      }
    } catch (e) {
      if (!isKeelError(e)) throw e;
      const position = typeof e.details.position === 'number' ? e.details.position : 0;
      this.c.report(path, e.message, { charIndex: position });
    }
  }
}
