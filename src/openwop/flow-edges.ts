/**
 * The edges of a Keel spec with control flow, drawn as an OpenWOP graph: one node per tool step
 * and per wait step (a node of type `keel.wait`, its `for` or `until` as config) and loop (an
 * iterator node of type `keel.forEach`, config its `items`, `as` and `max`: an edge into its body
 * `{forEach, each}`, one back from the body's last step `{forEach, next}`, one out `{forEach,
 * done}`), an edge for each way the walk can go from one to the next, and on each edge that is taken only
 * under a condition, that condition (`condition`: the branch of a choice with its `when`, the
 * `else`, a guarded step's `if`, or a guarded step skipped). A parallel step fans out: an edge
 * from the step before it to each branch's first step, each branch a chain, and an edge from each
 * branch's last step to the step after, with the join as its `triggerRule` (`all_success` for
 * `join: all`; `any_success`, OpenWOP's word for the first to succeed, for `join: first`). A
 * plain step list is a chain with no
 * conditions, as before. For reading only: Keel compiles no OpenWOP edge condition back
 * (definition.ts refuses one), so such a definition is a picture of the spec, not a source.
 */
import {
  allSteps,
  type FlowStep,
  isChooseStep,
  isLoopStep,
  isParallelStep,
  isToolStep,
  isWaitStep,
} from '../core/spec/index.ts';

/** The node type a wait step is drawn as; config `{for}`, `{until}` or `{event, match, timeout, lookback}`, as the spec writes it. */
export const WAIT_TYPE_ID = 'keel.wait';

/** The node type a loop (`forEach:`) is drawn as, an iterator; config `{items, as, max}`. */
export const FOREACH_TYPE_ID = 'keel.forEach';

/** A graph node as a spec's step draws it: a tool step, or a wait (type WAIT_TYPE_ID). */
export interface StepNode {
  readonly name: string;
  readonly typeId: string;
  readonly config: Record<string, unknown>;
}

/** The steps drawn as nodes, in document order: every tool step and every wait. */
export function stepNodes(steps: readonly FlowStep[]): StepNode[] {
  return allSteps(steps).flatMap((s): StepNode[] => {
    if (isToolStep(s)) return [{ name: s.name, typeId: s.tool, config: s.args }];
    if (isWaitStep(s)) return [{ name: s.name, typeId: WAIT_TYPE_ID, config: { ...s.wait } }];
    if (isLoopStep(s)) return [{ name: s.name, typeId: FOREACH_TYPE_ID, config: { ...s.forEach } }];
    return [];
  });
}

export interface FlowEdge {
  readonly id: string;
  readonly sourceNodeId: string;
  readonly targetNodeId: string;
  readonly condition?: Readonly<Record<string, unknown>>;
  /** On the edges into the step after a parallel: how its branches join. */
  readonly triggerRule?: 'all_success' | 'any_success';
}

type Frontier = {
  readonly id: string;
  readonly condition?: Record<string, unknown>;
  readonly triggerRule?: FlowEdge['triggerRule'];
}[];

export function flowEdges(steps: readonly FlowStep[]): FlowEdge[] {
  const edges: FlowEdge[] = [];
  const ids = new Set<string>();
  const edge = (from: Frontier[number], to: string, extra?: Record<string, unknown>) => {
    const condition = from.condition || extra ? { ...from.condition, ...extra } : undefined;
    let id = `${from.id}-${to}`;
    for (let n = 2; ids.has(id); n++) id = `${from.id}-${to}-${n}`;
    ids.add(id);
    edges.push({
      id,
      sourceNodeId: from.id,
      targetNodeId: to,
      ...(condition ? { condition } : {}),
      ...(from.triggerRule ? { triggerRule: from.triggerRule } : {}),
    });
  };
  const list = (items: readonly FlowStep[], from: Frontier): Frontier => {
    let at = from;
    for (const s of items) {
      if (isToolStep(s)) {
        for (const f of at) edge(f, s.name, s.if === undefined ? undefined : { if: s.if });
        const skipped =
          s.if === undefined
            ? []
            : at.map((f) => ({ id: f.id, condition: { ...f.condition, skipped: s.name, unless: s.if } }));
        at = [{ id: s.name }, ...skipped];
      } else if (isWaitStep(s)) {
        for (const f of at) edge(f, s.name);
        at = [{ id: s.name }];
      } else if (isParallelStep(s)) {
        const triggerRule = s.parallel.join === 'all' ? 'all_success' : 'any_success';
        // Fan out: every branch starts from where the walk is; the step after joins them all.
        const from = at.map((f) => ({ id: f.id, ...(f.condition ? { condition: f.condition } : {}) }));
        at = Object.values(s.parallel.branches).flatMap((steps) =>
          list(steps, from).map((f) => ({ ...f, triggerRule }) as Frontier[number]),
        );
      } else if (isLoopStep(s)) {
        // The iterator: into its body once per item, back to it after each, out once the list is done.
        for (const f of at) edge(f, s.name);
        const last = list(s.steps, [{ id: s.name, condition: { forEach: s.name, each: s.forEach.as } }]);
        for (const f of last) edge(f, s.name, { forEach: s.name, next: true });
        at = [{ id: s.name, condition: { forEach: s.name, done: true } }];
      } else if (isChooseStep(s)) {
        const out: Frontier = [];
        s.choose.forEach((b, j) => {
          out.push(
            ...list(
              b.steps,
              at.map((f) => ({
                id: f.id,
                condition: { ...f.condition, choose: s.name, branch: j, when: b.when },
              })),
            ),
          );
        });
        out.push(
          ...list(
            s.else ?? [],
            at.map((f) => ({ id: f.id, condition: { ...f.condition, choose: s.name, branch: 'else' } })),
          ),
        );
        at = out;
      }
    }
    return at;
  };
  list(steps, []);
  return edges;
}
