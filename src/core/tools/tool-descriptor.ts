/**
 * What Keel knows about a tool before it ever runs: name, argument schema, flags and cost.
 *
 * A descriptor is inert data; the handler that performs the effect lives behind the ToolInvoker
 * port. Checks (schema, guardrails) read only descriptors, so nothing here can execute anything.
 * A declared descriptor is checked here, strictly, before anything is registered: against the one
 * schema (tool-descriptor-schema.ts), then for what no schema can say — a contradiction between
 * flags, a cost argument the arguments do not declare as a number. Nothing declared can weaken a
 * check, so whatever is accepted is normalised to the one form the checks read (`cost: 5` is
 * `{fixedUsd: 5}`), and a refusal names the field.
 */
import { ErrorCode, KeelError } from '../errors.ts';
import { keelAjv } from './keel-ajv.ts';
import {
  type FieldProblem,
  schemaProblem,
  TOOL_APPROVALS,
  TOOL_DESCRIPTOR_SCHEMA,
  TOOL_EFFECTS,
  TOOL_NAME_RE,
} from './tool-descriptor-schema.ts';

export { TOOL_APPROVALS, TOOL_EFFECTS };
export type ToolEffect = (typeof TOOL_EFFECTS)[number];
export type ToolApproval = (typeof TOOL_APPROVALS)[number];

/** A JSON Schema (draft 2020-12) object schema. */
export type JsonSchema = { readonly [k: string]: unknown };

/**
 * Cost of one call: a fixed amount, plus (for tools that move money) the value of one argument,
 * plus the USD value at a field path of the call's result (`fromResult`, e.g. "usage.cost_usd"):
 * known only once the call returned, it counts with the step's completion, not before the call.
 * Amounts are USD with at most 2 decimals; Keel counts them in integer cents.
 */
export interface ToolCost {
  readonly fixedUsd?: number;
  readonly fromArg?: string;
  readonly fromResult?: string;
}

export interface ToolDescriptor {
  readonly name: string;
  readonly description: string;
  readonly args: JsonSchema;
  readonly destructive: boolean;
  readonly effect: ToolEffect;
  readonly idempotent: boolean;
  readonly scopes: readonly string[];
  readonly cost?: ToolCost;
  /** Postcondition: a JSON Schema the tool's output must satisfy before the step can complete. */
  readonly result?: JsonSchema;
  /**
   * `always`: the tool is an approval gate — every proposal of it waits for a person, whatever
   * the version's status, unless a person already approved exactly that proposal.
   */
  readonly approval?: ToolApproval;
}

export type DescriptorCheck =
  | { readonly ok: true; readonly descriptor: ToolDescriptor }
  | ({ readonly ok: false } & FieldProblem);

const isMapping = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A declared descriptor checked and normalised, or its first problem. `alsoKnown` names keys the
 * caller accepts beside the descriptor's (a tool definition's `handler`), for "did you mean".
 */
export function checkToolDescriptor(value: unknown, alsoKnown: readonly string[] = []): DescriptorCheck {
  if (!isMapping(value))
    return { ok: false, field: '(tool)', problem: 'expected a mapping with name, description, args...' };
  const shape = schemaProblem(TOOL_DESCRIPTOR_SCHEMA, value, alsoKnown);
  if (shape) return { ok: false, ...shape };
  const d = value as unknown as ToolDescriptor & { cost?: ToolCost | number };
  if (d.args.type !== 'object')
    return { ok: false, field: 'args', problem: 'expected a JSON Schema with type "object"' };
  for (const field of ['args', 'result'] as const) {
    const schema = d[field];
    if (schema === undefined) continue;
    try {
      keelAjv.compile(schema);
    } catch (e) {
      return { ok: false, field, problem: `not a JSON Schema Keel can check: ${(e as Error).message}` };
    }
  }
  const cost = typeof d.cost === 'number' ? { fixedUsd: d.cost } : d.cost;
  const descriptor: ToolDescriptor = {
    name: d.name,
    description: d.description,
    args: d.args,
    destructive: d.destructive,
    effect: d.effect,
    idempotent: d.idempotent,
    scopes: [...d.scopes],
    ...(cost && Object.keys(cost).length > 0 ? { cost } : {}),
    ...(d.result ? { result: d.result } : {}),
    ...(d.approval ? { approval: d.approval } : {}),
  };
  const contradiction = toolContradiction(descriptor);
  return contradiction ? { ok: false, ...contradiction } : { ok: true, descriptor };
}

/**
 * What two of a descriptor's well-formed fields say against each other, or undefined:
 * - a `read` tool changes nothing, so it can be neither `destructive` nor move money (`cost.fromArg`:
 *   a cost that is an argument's amount is money the tool moves);
 * - `cost.fromArg` names an argument the arguments' schema must declare, as a required number, so
 *   the spend cap always has an amount to judge.
 */
export function toolContradiction(d: ToolDescriptor): FieldProblem | undefined {
  if (d.effect === 'read' && d.destructive)
    return {
      field: 'destructive',
      problem:
        'a read tool changes nothing, so it cannot be destructive: declare effect write or external, or destructive false',
    };
  const from = d.cost?.fromArg;
  if (from === undefined) return undefined;
  if (d.effect === 'read')
    return {
      field: 'cost.fromArg',
      problem: `a cost taken from an argument is money the tool moves, which a read tool cannot do: declare effect write or external`,
    };
  const props = d.args.properties;
  if (props === undefined) return undefined;
  const prop = isMapping(props) ? props[from] : undefined;
  if (!isMapping(prop)) return { field: 'cost.fromArg', problem: `${from} is not a property of args` };
  const types = prop.type === undefined ? [] : Array.isArray(prop.type) ? prop.type : [prop.type];
  if (types.length === 0 || types.some((t) => t !== 'number' && t !== 'integer'))
    return {
      field: 'cost.fromArg',
      problem: `args.${from} must be declared type number (a USD amount), so its amount is always known`,
    };
  const required = Array.isArray(d.args.required) ? d.args.required : [];
  if (!required.includes(from))
    return {
      field: 'cost.fromArg',
      problem: `args.${from} must be required: a call without it would have no amount to judge against the spend cap`,
    };
  return undefined;
}

/**
 * A declared descriptor checked and normalised; a `usage` KeelError naming the tool (or `label`
 * until its name is known) and the field otherwise.
 */
export function parseToolDescriptor(
  value: unknown,
  o: { readonly label?: string; readonly alsoKnown?: readonly string[] } = {},
): ToolDescriptor {
  const c = checkToolDescriptor(value, o.alsoKnown);
  if (c.ok) return c.descriptor;
  const name = isMapping(value) ? value.name : undefined;
  const tool =
    typeof name === 'string' && TOOL_NAME_RE.test(name)
      ? `tool ${JSON.stringify(name)}`
      : (o.label ?? 'tool');
  throw new KeelError(ErrorCode.usage, `${tool}: ${c.field}: ${c.problem}`, {
    tool: typeof name === 'string' ? name : (o.label ?? null),
    field: c.field,
    problem: c.problem,
  });
}
