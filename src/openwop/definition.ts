/**
 * OpenWOP workflow definitions (nodes + edges) compile to Keel specs, so they run on the same
 * engine, under the same checks and the same ledger as step lists.
 *
 * Compilation orders the nodes topologically along their edges (ties keep the definition's node
 * order) and turns each node into a step named by the node id whose tool is the node's `typeId`.
 * A step's arguments are the node's `config` overlaid by its `inputs` port values:
 *   static     -> the value
 *   variable   -> `{{event.payload.inputs.<name>}}` (run inputs over the variables' defaults)
 *   connection -> `{{steps.<nodeId>.output.<outputKey>}}`
 * Nodes of `core.conformance.nondeterminism` draw every declared source through templates, so the
 * engine records each value before the tool sees it. What Keel cannot run yet is refused with the
 * field named: cycles (loops), expression ports and edge conditions.
 */

import { MAX_STEPS_PER_RUN } from '../app/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { allSteps, isPlainChain, isToolStep, type WorkflowSpec } from '../core/spec/index.ts';
import { fanOutAt } from './fan-out.ts';
import { FOREACH_TYPE_ID, flowEdges, stepNodes, WAIT_TYPE_ID } from './flow-edges.ts';

export interface OpenWopNode {
  readonly id: string;
  readonly typeId: string;
  readonly name?: string;
  readonly config?: Record<string, unknown>;
  readonly inputs?: Record<string, unknown>;
}

export interface OpenWopEdge {
  readonly id?: string;
  readonly sourceNodeId: string;
  readonly targetNodeId: string;
  readonly triggerRule?: string;
  readonly condition?: unknown;
}

export interface OpenWopVariable {
  readonly name: string;
  readonly type?: string;
  readonly defaultValue?: unknown;
}

export interface OpenWopDefinition {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly nodes: readonly OpenWopNode[];
  readonly edges: readonly OpenWopEdge[];
  readonly variables: readonly OpenWopVariable[];
  readonly triggers?: readonly unknown[];
  readonly settings?: Record<string, unknown>;
  readonly metadata?: Record<string, unknown>;
}

/** The event type a run created through OpenWOP is started by. */
export const OPENWOP_RUN_EVENT = 'openwop.run.requested';

const DEF_ID = /^[a-z][a-z0-9_-]*$/;
const TYPE_ID = /^[a-z][a-z0-9_-]*(\.[a-z][a-zA-Z0-9_-]*)+$/;
const TRIGGER_RULES = new Set(['all_success', 'any_success', 'all_complete', 'none_failed', 'any_failed']);

/** Templates a nondeterminism node draws through, one per declared source. */
const NONDETERMINISM_ARGS = {
  clock: '{{clock.now}}',
  random: '{{random.hex}}',
  id: '{{id.new}}',
  env: '{{env.KEEL_REGION}}',
};

interface Problem {
  readonly field: string;
  readonly message: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function invalid(problems: readonly Problem[]): KeelError {
  const first = problems[0]!;
  return new KeelError(
    ErrorCode.specInvalid,
    `workflow definition: ${first.field}: ${first.message}${problems.length > 1 ? ` (+${problems.length - 1} more)` : ''}`,
    { problems },
  );
}

/** Checks the shape Keel relies on and returns the definition typed; every problem at once. */
export function parseDefinition(value: unknown): OpenWopDefinition {
  const problems: Problem[] = [];
  const add = (field: string, message: string) => problems.push({ field, message });
  if (!isObject(value)) throw invalid([{ field: '(definition)', message: 'expected a JSON object' }]);
  const v = value;
  if (typeof v.id !== 'string' || !DEF_ID.test(v.id) || v.id.length > 128)
    add('id', `expected an id matching ${DEF_ID.source} (at most 128), got ${JSON.stringify(v.id)}`);
  if (typeof v.name !== 'string' || v.name.length === 0) add('name', 'expected a non-empty string');
  if (typeof v.version !== 'string') add('version', `expected a string, got ${JSON.stringify(v.version)}`);
  if (!Array.isArray(v.nodes) || v.nodes.length === 0) add('nodes', 'expected a non-empty array');
  else if (v.nodes.length > MAX_STEPS_PER_RUN)
    add(
      'nodes',
      `${v.nodes.length} nodes, more than the ${MAX_STEPS_PER_RUN} node executions a run may take (maxNodeExecutions): the run could never finish`,
    );
  if (!Array.isArray(v.edges)) add('edges', 'expected an array');
  // Lenient like the reference hosts: `variables: {}` is read as no variables.
  if (v.variables !== undefined && !Array.isArray(v.variables) && !isObject(v.variables))
    add('variables', 'expected an array');
  const ids = new Set<string>();
  const nodes = Array.isArray(v.nodes) ? v.nodes : [];
  nodes.forEach((n: unknown, i) => {
    const at = `nodes[${i}]`;
    if (!isObject(n)) {
      add(at, 'expected an object');
      return;
    }
    if (typeof n.id !== 'string' || n.id.length === 0) add(`${at}.id`, 'expected a non-empty string');
    else if (ids.has(n.id)) add(`${at}.id`, `duplicate node id ${JSON.stringify(n.id)}`);
    else ids.add(n.id);
    if (typeof n.typeId !== 'string' || !TYPE_ID.test(n.typeId))
      add(`${at}.typeId`, `expected a type id like core.noop, got ${JSON.stringify(n.typeId)}`);
    else if (n.typeId === WAIT_TYPE_ID)
      add(
        `${at}.typeId`,
        `${WAIT_TYPE_ID} is how Keel draws a spec's wait step; a definition cannot declare one: write the wait in a spec (wait: {for} or {until})`,
      );
    else if (n.typeId === FOREACH_TYPE_ID)
      add(
        `${at}.typeId`,
        `${FOREACH_TYPE_ID} is how Keel draws a spec's loop; a definition cannot declare one: write the loop in a spec (forEach: {items, as, max})`,
      );
    if (n.config !== undefined && !isObject(n.config)) add(`${at}.config`, 'expected an object');
    if (n.inputs !== undefined && !isObject(n.inputs)) add(`${at}.inputs`, 'expected an object');
    for (const [port, pv] of Object.entries(isObject(n.inputs) ? n.inputs : {})) {
      const pat = `${at}.inputs.${port}`;
      if (!isObject(pv)) add(pat, 'expected a port value {type, ...}');
      else if (pv.type === 'expression') add(`${pat}.type`, 'expression ports are not supported by Keel');
      else if (pv.type === 'variable' && typeof pv.variableName !== 'string')
        add(`${pat}.variableName`, 'expected a string');
      else if (
        pv.type === 'connection' &&
        (typeof pv.nodeId !== 'string' || typeof pv.outputKey !== 'string')
      )
        add(pat, 'a connection names nodeId and outputKey');
      else if (!['static', 'variable', 'connection'].includes(String(pv.type)))
        add(`${pat}.type`, `expected static, variable or connection, got ${JSON.stringify(pv.type)}`);
    }
  });
  const edges = Array.isArray(v.edges) ? v.edges : [];
  edges.forEach((e: unknown, i) => {
    const at = `edges[${i}]`;
    if (!isObject(e)) {
      add(at, 'expected an object');
      return;
    }
    for (const end of ['sourceNodeId', 'targetNodeId'] as const) {
      if (typeof e[end] !== 'string' || !ids.has(e[end] as string))
        add(`${at}.${end}`, `expected the id of a node, got ${JSON.stringify(e[end])}`);
    }
    if (e.triggerRule !== undefined && !TRIGGER_RULES.has(String(e.triggerRule)))
      add(`${at}.triggerRule`, `expected one of ${[...TRIGGER_RULES].join(', ')}`);
    else if (e.triggerRule !== undefined && e.triggerRule !== 'all_success')
      add(`${at}.triggerRule`, 'Keel runs all_success edges only (a failed node fails the run)');
    if (e.condition !== undefined) add(`${at}.condition`, 'edge conditions are not supported by Keel');
  });
  if (problems.length > 0) throw invalid(problems);
  const variables = Array.isArray(v.variables) ? v.variables : [];
  return { ...(v as unknown as OpenWopDefinition), variables: variables as OpenWopVariable[] };
}

/** Node ids in execution order: dependencies first, ties in definition order; a cycle is refused. */
export function topologicalOrder(def: OpenWopDefinition): string[] {
  const indegree = new Map(def.nodes.map((n) => [n.id, 0]));
  for (const e of def.edges) indegree.set(e.targetNodeId, (indegree.get(e.targetNodeId) ?? 0) + 1);
  const order: string[] = [];
  const done = new Set<string>();
  while (order.length < def.nodes.length) {
    const next = def.nodes.find((n) => !done.has(n.id) && indegree.get(n.id) === 0);
    if (!next) {
      const stuck = def.nodes.filter((n) => !done.has(n.id)).map((n) => n.id);
      throw invalid([
        { field: 'edges', message: `a cycle through ${stuck.join(', ')}: loops are not supported by Keel` },
      ]);
    }
    order.push(next.id);
    done.add(next.id);
    for (const e of def.edges)
      if (e.sourceNodeId === next.id) indegree.set(e.targetNodeId, indegree.get(e.targetNodeId)! - 1);
  }
  return order;
}

function portArg(pv: Record<string, unknown>): unknown {
  if (pv.type === 'variable') return `{{event.payload.inputs.${pv.variableName}}}`;
  if (pv.type === 'connection') return `{{steps.${pv.nodeId}.output.${pv.outputKey}}}`;
  return pv.value;
}

/** The Keel spec value (validate it with `validateSpec`) a definition compiles to. */
export function compileDefinition(def: OpenWopDefinition): Record<string, unknown> {
  const byId = new Map(def.nodes.map((n) => [n.id, n]));
  const stepOf = (id: string) => {
    const node = byId.get(id)!;
    const args: Record<string, unknown> = { ...(node.config ?? {}) };
    for (const [port, pv] of Object.entries(node.inputs ?? {}))
      args[port] = portArg(pv as Record<string, unknown>);
    if (node.typeId === 'core.conformance.nondeterminism') Object.assign(args, NONDETERMINISM_ARGS);
    return { name: id, tool: node.typeId, args };
  };
  // A fan-out joined on one node with all_success runs as `parallel` (fan-out.ts); else a chain.
  const steps: Record<string, unknown>[] = [];
  const inBranch = new Set<string>();
  let tools = 0;
  for (const id of topologicalOrder(def)) {
    if (inBranch.has(id)) continue;
    steps.push(stepOf(id));
    tools++;
    const fan = fanOutAt(def, id);
    if (!fan) continue;
    const branches: Record<string, unknown[]> = {};
    for (const [name, chain] of Object.entries(fan.branches)) {
      branches[name] = chain.map(stepOf);
      tools += chain.length;
      for (const x of chain) inBranch.add(x);
    }
    steps.push({ name: `${id}_branches`, parallel: { join: 'all', branches } });
  }
  const draws = def.nodes.some((n) => n.typeId === 'core.conformance.nondeterminism');
  return {
    id: def.id,
    // A whole-number version ("2") is the Keel version; anything else ("1.0.0") publishes as 1.
    version: /^[1-9]\d{0,8}$/.test(def.version) ? Number(def.version) : 1,
    status: 'DRAFT',
    ...(def.description ? { description: def.description } : {}),
    triggers: [],
    steps,
    limits: { maxSteps: tools, maxCostUsd: 0 },
    ...(draws ? { env: ['KEEL_REGION'] } : {}),
    ...(def.variables.some((v) => v.defaultValue !== undefined)
      ? { inputDefaults: variableDefaults(def) }
      : {}),
  };
}

/** The variables' defaults: what a run's inputs start from (the spec's `inputDefaults`). */
export function variableDefaults(def: OpenWopDefinition): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const v of def.variables) if (v.defaultValue !== undefined) out[v.name] = v.defaultValue;
  return out;
}

/** Run inputs: the defaults, overlaid by what the caller sent (undeclared keys kept). */
export function runInputs(
  defaults: Readonly<Record<string, unknown>> | undefined,
  inputs: Record<string, unknown>,
): Record<string, unknown> {
  return { ...(defaults ?? {}), ...inputs };
}

/**
 * A spec's triggers as an OpenWOP definition lists them: `manual` (a run created over OpenWOP
 * starts it directly), then each trigger as written — an `event` trigger with its type and
 * condition, a `schedule` trigger with its cron, zone and missed-fire policy (docs/events.md).
 */
export function definitionTriggers(spec: Pick<WorkflowSpec, 'triggers'>): Record<string, unknown>[] {
  return [
    { id: 'manual', type: 'manual' },
    ...spec.triggers.map((t, i) =>
      t.schedule
        ? { id: `schedule-${i}`, type: 'schedule', config: { ...t.schedule } }
        : {
            id: `event-${i}`,
            type: 'event',
            config: { event: t.event, ...(t.when ? { when: t.when } : {}) },
          },
    ),
  ];
}

/**
 * A Keel spec shown as an OpenWOP definition: one node per step (config = the step's arguments,
 * templates included; a wait is a `keel.wait` node, config its `for` or `until`), a chain of edges (with conditions where the spec branches: flow-edges.ts),
 * a variable per input default, and its triggers (definitionTriggers). What `GET
 * /workflows/{id}` answers for workflows that were not published as definitions.
 */
export function specAsDefinition(spec: WorkflowSpec): Record<string, unknown> {
  const steps = stepNodes(spec.steps);
  return {
    id: spec.id,
    name: spec.id,
    version: String(spec.version),
    ...(spec.description ? { description: spec.description } : {}),
    nodes: steps.map((st, i) => ({
      id: st.name,
      typeId: st.typeId,
      name: st.name,
      position: { x: i * 200, y: 0 },
      config: st.config,
      inputs: {},
    })),
    edges: isPlainChain(spec)
      ? steps.slice(1).map((st, i) => ({
          id: `${steps[i]!.name}-${st.name}`,
          sourceNodeId: steps[i]!.name,
          targetNodeId: st.name,
        }))
      : flowEdges(spec.steps),
    triggers: definitionTriggers(spec),
    variables: Object.entries(spec.inputDefaults ?? {}).map(([name, defaultValue]) => ({
      name,
      defaultValue,
    })),
    // A step's approval deadline (docs/governance.md) as it is written, by step: what an
    // interrupt for that step's approval will do if nobody answers. Absent when no step declares one.
    metadata: approvalDeadlines(spec),
    settings: {},
  };
}

/** `{'keel.approvalDeadlines': {<step>: {timeout, then, remind?}}}`, or `{}` when no step declares one. */
function approvalDeadlines(spec: WorkflowSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of allSteps(spec)) if (isToolStep(s) && s.approval) out[s.name] = s.approval;
  return Object.keys(out).length === 0 ? {} : { 'keel.approvalDeadlines': out };
}
