/**
 * Where each step of a raw step list sits: its field path, its place in document order, the
 * branches that enclose it, and whether it may be skipped. Built once, before any step is
 * checked, so names are unique across the whole document (nested steps included) and every
 * reference to a step (a template, a condition) is judged against the same facts: a template may
 * read any step that ran before it in the same run; a condition only a step that is sure to have
 * run before it (not guarded by `if:`, not inside a branch that may be skipped). A parallel step's
 * branches (lanes) run at the same time: a step in one never reads a step of another, and a step
 * after a `join: first` reads none of them (the branches that lost may have been cut short).
 *
 * Reports bad and duplicate names and lists nested too deep; never reads a value past its shape.
 */
import { MAX_FLOW_DEPTH } from './flow-steps.ts';
import { declaredMax } from './foreach-step.ts';
import type { PathSegment } from './read-path.ts';
import { field, isMapping, isNear, readString, type SpecChecker } from './spec-checker.ts';
import { formatFieldPath } from './spec-problem.ts';

const STEP_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One step as laid out in the document. */
export interface PlacedStep {
  readonly name: string | undefined;
  readonly path: readonly PathSegment[];
  /** Place in document order (a step before the steps nested in it). */
  readonly order: number;
  /** The branches enclosing it, outermost first: `<choice name>#<branch index or "else">`. */
  readonly branches: readonly string[];
  readonly kind: 'tool' | 'choose' | 'wait' | 'parallel' | 'foreach';
  /** The parallel branches enclosing it, outermost first: `<parallel name>&<branch name>`. */
  readonly lanes: readonly string[];
  /** The loop (`forEach:`) whose body it is in, if any: it runs once per item, recorded apart. */
  readonly loop?: string;
  /** Has its own `if:`: it may be skipped. */
  readonly guarded: boolean;
  /** A wait for an event (`wait: { event }`): unlike a timer, it has an output (`timedOut`, `event`). */
  readonly eventWait?: boolean;
}

export interface StepLayout {
  readonly byName: ReadonlyMap<string, PlacedStep>;
  /** The placed step of each raw step mapping. */
  readonly of: ReadonlyMap<object, PlacedStep>;
  /** The most tool steps one run can reach (the longest way through the branches). */
  readonly longest: number;
  /** Each parallel step's join rule, by the parallel's name. */
  readonly joins: ReadonlyMap<string, string>;
}

export function layOutSteps(c: SpecChecker, raw: readonly unknown[]): StepLayout {
  const byName = new Map<string, PlacedStep>();
  const of = new Map<object, PlacedStep>();
  const joins = new Map<string, string>();
  let order = 0;
  const list = (
    items: readonly unknown[],
    base: PathSegment[],
    branches: string[],
    depth: number,
    lanes: string[] = [],
    loop?: string,
  ): number => {
    let most = 0;
    items.forEach((s, i) => {
      if (!isMapping(s)) return;
      const path = [...base, i];
      const name = nameOf(c, s, path, byName);
      const choose = Object.hasOwn(s, 'choose');
      const parallel = !choose && Object.hasOwn(s, 'parallel');
      const wait = !choose && !parallel && Object.hasOwn(s, 'wait');
      const forEach = !choose && !parallel && !wait && Object.hasOwn(s, 'forEach');
      const placed: PlacedStep = {
        name,
        path,
        order: order++,
        branches,
        lanes,
        kind: choose ? 'choose' : parallel ? 'parallel' : wait ? 'wait' : forEach ? 'foreach' : 'tool',
        guarded: field(s, 'if') !== undefined,
        ...(wait && isMapping(field(s, 'wait')) && Object.hasOwn(field(s, 'wait') as object, 'event')
          ? { eventWait: true }
          : {}),
        ...(loop === undefined ? {} : { loop }),
      };
      of.set(s, placed);
      if (name !== undefined) byName.set(name, placed);
      if (parallel) {
        const p = field(s, 'parallel');
        const b = isMapping(p) ? field(p, 'branches') : undefined;
        const join = isMapping(p) ? field(p, 'join') : undefined;
        if (name !== undefined) joins.set(name, typeof join === 'string' ? join : 'all');
        if (depth + 1 > MAX_FLOW_DEPTH) {
          c.report([...path, 'parallel'], `nested deeper than ${MAX_FLOW_DEPTH} levels of branches`);
          return;
        }
        // Every branch may run to its end (join: all), so the steps of all of them count.
        if (isMapping(b))
          for (const [k, steps] of Object.entries(b))
            if (Array.isArray(steps))
              most += list(
                steps,
                [...path, 'parallel', 'branches', k],
                branches,
                depth + 1,
                [...lanes, `${name ?? formatFieldPath(path)}&${k}`],
                loop,
              );
        return;
      }
      if (forEach) {
        const body = field(s, 'steps');
        if (depth + 1 > MAX_FLOW_DEPTH) {
          c.report([...path, 'steps'], `nested deeper than ${MAX_FLOW_DEPTH} levels of branches`);
          return;
        }
        // Every iteration may run the whole body: the loop takes up to max times its steps.
        if (Array.isArray(body))
          most +=
            declaredMax(s) *
            list(body, [...path, 'steps'], branches, depth + 1, lanes, name ?? formatFieldPath(path));
        return;
      }
      if (!choose) {
        // A wait calls no tool: it takes no step of maxSteps.
        if (!wait) most++;
        return;
      }
      if (depth + 1 > MAX_FLOW_DEPTH) {
        c.report([...path, 'choose'], `nested deeper than ${MAX_FLOW_DEPTH} levels of branches`);
        return;
      }
      let widest = 0;
      const key = (b: number | 'else') => `${name ?? formatFieldPath(path)}#${b}`;
      const rawChoose = field(s, 'choose');
      if (Array.isArray(rawChoose))
        rawChoose.forEach((b, j) => {
          const steps = isMapping(b) ? field(b, 'steps') : undefined;
          if (Array.isArray(steps))
            widest = Math.max(
              widest,
              list(steps, [...path, 'choose', j, 'steps'], [...branches, key(j)], depth + 1, lanes, loop),
            );
        });
      const rawElse = field(s, 'else');
      if (Array.isArray(rawElse))
        widest = Math.max(
          widest,
          list(rawElse, [...path, 'else'], [...branches, key('else')], depth + 1, lanes, loop),
        );
      most += widest;
    });
    return most;
  };
  const longest = list(raw, ['steps'], [], 0);
  return { byName, of, longest, joins };
}

function nameOf(
  c: SpecChecker,
  s: Record<string, unknown>,
  path: PathSegment[],
  seen: ReadonlyMap<string, PlacedStep>,
): string | undefined {
  const name = readString(c, s, [...path, 'name'], {
    what: 'a step name of letters, digits and _ (not starting with a digit)',
    pattern: STEP_NAME,
  });
  if (name === undefined) return undefined;
  const prev = seen.get(name);
  if (prev === undefined) return name;
  c.report([...path, 'name'], `duplicate step name "${name}" (also ${formatFieldPath(prev.path)})`);
  return undefined;
}

const where = (p: PlacedStep) => formatFieldPath(p.path);

/** The innermost choice enclosing both at different branches, if any: they never run together. */
function apart(a: PlacedStep, b: PlacedStep): string | undefined {
  for (const x of a.branches) {
    const choice = x.slice(0, x.lastIndexOf('#'));
    const y = b.branches.find((k) => k.slice(0, k.lastIndexOf('#')) === choice);
    if (y !== undefined && y !== x) return choice;
  }
  return undefined;
}

/**
 * Why `reader` cannot read step `name`'s output through a template, or undefined when it can:
 * the step runs before it in some run that runs the reader (it may still have been skipped, and
 * then its output reads as missing).
 */
export function templateReadProblem(
  layout: StepLayout,
  reader: PlacedStep,
  name: string,
): string | undefined {
  const target = layout.byName.get(name);
  if (!target) {
    const near = [...layout.byName.values()].find(
      (p) => p.order < reader.order && p.name !== undefined && isNear(p.name, name),
    );
    return `no step named "${name}"${near ? `; did you mean "${near.name}"?` : ''}`;
  }
  if (target === reader) return 'a step cannot read its own output';
  const lanes = laneProblem(layout, target, reader);
  if (lanes !== undefined) return lanes;
  if (target.order > reader.order)
    return `step "${name}" runs later (${where(target)}); only earlier steps' output can be read`;
  if (target.kind === 'choose') return `step "${name}" is a choice (choose:) and has no output`;
  if (target.kind === 'wait' && !target.eventWait)
    return `step "${name}" is a timer (wait: for or until) and has no output`;
  if (target.kind === 'parallel') return `step "${name}" is a parallel (parallel:) and has no output`;
  if (target.kind === 'foreach' && reader.loop === name)
    return `step "${name}" is the forEach this step is in; its output (every iteration's outputs, in a list) is read after the loop`;
  if (target.loop !== undefined && target.loop !== reader.loop)
    return `step "${name}" runs inside forEach "${target.loop}", once per item; after the loop read steps.${target.loop}.output[<i>].${name}`;
  const choice = apart(target, reader);
  if (choice !== undefined)
    return `step "${name}" (${where(target)}) is in another branch of "${choice}" and never runs in the same run`;
  return undefined;
}

const laneParallel = (lane: string) => lane.slice(0, lane.lastIndexOf('&'));

/**
 * Why `reader` cannot read `target` for where their parallel branches put them: in two branches
 * of one parallel (they run at the same time), or `target` in a branch of a `join: first` the
 * reader comes after (that branch may have been cut short).
 */
function laneProblem(layout: StepLayout, target: PlacedStep, reader: PlacedStep): string | undefined {
  for (const lane of target.lanes) {
    if (reader.lanes.includes(lane)) continue;
    const p = laneParallel(lane);
    if (reader.lanes.some((l) => laneParallel(l) === p))
      return `step "${target.name}" (${where(target)}) is in another branch of parallel "${p}", which runs at the same time; a branch reads only its own steps and those before the parallel`;
    if (layout.joins.get(p) === 'first')
      return `step "${target.name}" (${where(target)}) is in a branch of parallel "${p}", which joins first: that branch may have been cut short; after it, read only steps before the parallel`;
  }
  return undefined;
}

/**
 * Why a condition at `reader` (a guarded step's `if:`, or a choice's `when:`) cannot read step
 * `name`, or undefined when it can: the step is sure to have run (and not been skipped) before it.
 */
export function conditionReadProblem(
  layout: StepLayout,
  reader: PlacedStep,
  name: string,
): string | undefined {
  const basic = templateReadProblem(layout, reader, name);
  if (basic !== undefined) return basic;
  const target = layout.byName.get(name)!;
  if (target.guarded)
    return `step "${name}" has an if: and may be skipped; a condition may read only steps sure to have run before it`;
  const outer = target.branches.find((b) => !reader.branches.includes(b));
  if (outer !== undefined)
    return `step "${name}" (${where(target)}) is in a branch of "${outer.slice(0, outer.lastIndexOf('#'))}" that may not be taken; a condition may read only steps sure to have run before it`;
  return undefined;
}
