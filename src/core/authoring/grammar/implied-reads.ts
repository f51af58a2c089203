/**
 * Steps the catalog implies: a tool's required argument that no event field and no word of the
 * request fills, but that a read tool of the catalog returns about the same thing the step is about
 * (a grant needs the employee's `active` flag, a sign-off their `manager_id`, and `lookup_employee`
 * reads an employee by `employee_id` and returns "name, manager, department, whether they're
 * active"). The argument reads `{{steps.<read>.output.<field>}}`, and the read step is added first
 * in the draft (named for what it does, `lookup`), or, when the request already asks for it ("look
 * them up"), that step is the one read. Both are listed under "Assumed" in the read-back.
 *
 * What a read tool returns is its `result` schema's properties when it declares one; else the
 * list its description gives after a colon or "returns" ("... : name, manager, department, whether
 * they're active": a "whether" item is a yes/no field, a "how many records" item a count (`record_count`); "says whether an invoice matches it" is a
 * yes/no named by the verb's participle, `matched`), and then only when exactly one read tool
 * fits. The read tool must read the step's subject by an id argument the step's tool takes too
 * (both take `employee_id`); the rest of its key must be ids the step's tool takes or fields the
 * event carries by name (a purchase order's match reads `po_number` from the invoice event too).
 * An argument that is the read tool's own key is never its output; a yes/no argument named for a
 * key and the read's yes/no (`po_matched`: `po_number`, `matched`) is that yes/no.
 *
 * A date-time argument (`format: date-time`, or a text argument named `*_at`) nothing else fills is
 * `{{clock.now}}`, the run's recorded clock, Assumed.
 *
 * Pure; the argument reader (fill-args.ts) asks here before it asks the person, and the compiler
 * (compile-request.ts) places the read steps once every step is read (`placeImpliedReads`).
 */
import type { ChooseStepSpec, FlowStep } from '../../spec/flow-steps.ts';
import type { StepSpec } from '../../spec/workflow-spec.ts';
import type { ToolDescriptor } from '../../tools/tool-descriptor.ts';
import type { DraftStep, RequestContext } from './request-context.ts';

/** A field a read tool returns: its name, and whether it is a yes/no. */
export interface OutputField {
  readonly name: string;
  readonly yesNo: boolean;
}

interface Outputs {
  readonly fields: readonly OutputField[];
  /** Read from the tool's `result` schema (else from its description's words). */
  readonly declared: boolean;
}

const isId = (n: string) => n === 'id' || n.endsWith('_id');

/** What a read tool returns: its `result` schema's properties, else its description's list. */
export function outputsOf(tool: ToolDescriptor): Outputs {
  const props = tool.result?.properties;
  if (props && typeof props === 'object' && !Array.isArray(props)) {
    const fields = Object.entries(props as Record<string, { type?: unknown }>).map(([name, s]) => ({
      name,
      yesNo: s?.type === 'boolean',
    }));
    return { fields, declared: true };
  }
  return { fields: describedOutputs(tool.description), declared: false };
}

/**
 * "Reads an employee from the directory: name, manager, department, whether they're active." ->
 * name, manager, department, active (yes/no). The list after a colon, or after "returns" /
 * "gives"; items of one to three words, joined by `_`.
 */
export function describedOutputs(description: string): OutputField[] {
  const first = description.split(/(?<=[a-z0-9)])\.(?:\s|$)/i)[0] ?? '';
  const out: OutputField[] = [];
  // "Reads a purchase order and says whether an invoice matches it": a yes/no named by the verb's
  // past participle (`matched`), said as the read's one outcome.
  const says =
    /\b(?:says|tells|checks|reports|shows|confirms|answers)\s+whether\s+(?:(?:a|an|the|it|they|its|their)\s+)?(?:[a-z]+\s+){0,2}?([a-z]+s)(?=\s+(?:(?:for|with|to|against|on|in)\s+)?(?:it|them|its|their|the|a|an|any|all)\b|\s*[.,;(]|\s*$)/i.exec(
      first,
    );
  const verb = says ? participle(says[1]!.toLowerCase()) : undefined;
  if (verb !== undefined) out.push({ name: verb, yesNo: true });
  const m = /(?::|\b(?:returns|gives|with its|with their))\s+(.+)$/i.exec(first);
  if (!m) return out;
  for (const item of m[1]!.split(/\s*,\s*|\s+(?:and|or)\s+/)) {
    // "how many records there are": a count, named for the thing counted (`record_count`).
    const many = /^(?:and\s+|or\s+)?how many ([a-z]+)(?:\s+(?:there are|it has|they have|there is))?$/i.exec(
      item.trim(),
    );
    if (many) {
      const counted = many[1]!
        .toLowerCase()
        .replace(/ies$/, 'y')
        .replace(/([^s])s$/, '$1');
      if (!out.some((f) => f.name === `${counted}_count`))
        out.push({ name: `${counted}_count`, yesNo: false });
      continue;
    }
    const w =
      /^(?:and\s+|or\s+)?(whether\s+(?:(?:they're|theyre|they are|it's|its|it is|he's|she's|the\s+[a-z]+\s+is)\s+)?)?(?:(?:its|their|the)\s+)?([a-z][a-z0-9]*(?:\s+[a-z][a-z0-9]*){0,2})$/i.exec(
        item.trim(),
      );
    if (!w) continue;
    const name = w[2]!.toLowerCase().split(/\s+/).join('_');
    if (!out.some((f) => f.name === name)) out.push({ name, yesNo: w[1] !== undefined });
  }
  return out;
}

/** "matches" -> matched, "qualifies" -> qualified, "passes" -> passed; "is", "has" -> none. */
export function participle(verb: string): string | undefined {
  if (/^(?:is|was|has|does|yes|its|this|us)$/.test(verb)) return undefined;
  if (/ies$/.test(verb)) return verb.replace(/ies$/, 'ied');
  if (/(?:s|sh|ch|x|z)es$/.test(verb)) return verb.replace(/es$/, 'ed');
  const stem = verb.endsWith('ss') ? verb : verb.replace(/s$/, '');
  return stem.endsWith('e') ? `${stem}d` : `${stem}ed`;
}

/**
 * The read tool that supplies `arg` of `tool`, and the field of its output, when exactly one fits;
 * the names of those that fit when several do (a question: which one is a guess).
 */
export function impliedRead(
  tool: ToolDescriptor,
  arg: string,
  ctx: RequestContext,
  carried: readonly string[] = [],
): { read: ToolDescriptor; field: string } | { ambiguous: string[] } | undefined {
  const takes = (t: ToolDescriptor) => Object.keys((t.args.properties ?? {}) as object);
  const required = (t: ToolDescriptor) =>
    Array.isArray(t.args.required) ? (t.args.required as string[]) : [];
  const schema = ((tool.args.properties ?? {}) as Record<string, { type?: unknown; const?: unknown }>)[arg];
  const argYesNo = schema?.type === 'boolean' || typeof schema?.const === 'boolean';
  const fits: { read: ToolDescriptor; field: string; declared: boolean }[] = [];
  for (const r of ctx.tools) {
    if (r.name === tool.name || r.effect !== 'read' || r.cost?.fromArg !== undefined) continue;
    // The read tool reads the step's subject: its key (its required arguments) holds an id the
    // tool takes too, and each other part of it is an id the tool takes or a field the event
    // carries by its name (a purchase order's match reads po_number, vendor_id and amount_usd).
    const key = required(r);
    const shared = (k: string) => isId(k) && takes(tool).includes(k);
    if (!key.some(shared) || !key.every((k) => shared(k) || carried.includes(k))) continue;
    if (key.includes(arg)) continue;
    const outputs = outputsOf(r);
    const stem = isId(arg) ? arg.replace(/_?id$/, '') : undefined;
    // A yes/no argument named for what the read reads and its answer: `po_matched` is the
    // `matched` of a read keyed by `po_number`.
    const named = (f: OutputField) =>
      f.yesNo &&
      argYesNo &&
      key.some((k) => arg === `${k.replace(/_(?:id|number|no|code|key)$/, '')}_${f.name}`);
    const hit =
      outputs.fields.find((f) => f.name === arg) ??
      (stem ? outputs.fields.find((f) => f.name === stem && !f.yesNo) : undefined) ??
      outputs.fields.find(named);
    if (hit) fits.push({ read: r, field: hit.name, declared: outputs.declared });
  }
  // A declared output schema is what the tool returns; words of a description only when one fits.
  const declared = fits.filter((f) => f.declared);
  const chosen = declared.length > 0 ? declared : fits;
  if (chosen.length > 1) return { ambiguous: chosen.map((f) => f.read.name) };
  return chosen.length === 1 ? { read: chosen[0]!.read, field: chosen[0]!.field } : undefined;
}

/** The name a template gives an implied read until it is placed: never a name a step can have. */
const PENDING = '__implied__';
/** In an argument's template, or a step's condition (`if:`, a branch's `when`, read-step-tests.ts). */
const PENDING_RE = /steps\.__implied__([A-Za-z0-9_.-]+?)__\.output\.([A-Za-z0-9_]+)/g;

/** The value of an argument an implied read supplies, until `placeImpliedReads` names the step. */
export function pendingOutput(read: ToolDescriptor, field: string): string {
  return `{{steps.${PENDING}${read.name}__.output.${field}}}`;
}

/** `{{clock.now}}` for a date-time argument nothing else fills. */
export function isDateTimeArg(name: string, schema: { type?: unknown; format?: unknown }): boolean {
  return schema.type === 'string' && (schema.format === 'date-time' || /(?:^|_)at$/.test(name));
}

/** Every choice of a flow, nested ones too. */
function choicesOf(flow: readonly FlowStep[]): ChooseStepSpec[] {
  return flow.flatMap((s) =>
    'choose' in s
      ? [
          s as ChooseStepSpec,
          ...(s as ChooseStepSpec).choose.flatMap((b) => choicesOf(b.steps)),
          ...choicesOf(s.else ?? []),
        ]
      : [],
  );
}

/** Every tool step of a flow, in branches too. */
function toolStepsOf(flow: readonly FlowStep[]): StepSpec[] {
  return flow.flatMap((s) =>
    'choose' in s
      ? [...(s as ChooseStepSpec).choose.flatMap((b) => toolStepsOf(b.steps)), ...toolStepsOf(s.else ?? [])]
      : 'tool' in s
        ? [s as StepSpec]
        : [],
  );
}

/** Whether a step's arguments or test wait for `pending`. */
const waitsFor = (s: StepSpec, pending: string) =>
  String(s.if ?? '').includes(pending) ||
  Object.values(s.args ?? {}).some((v) => String(v).includes(pending));

/**
 * The request's own step of `toolName` inside one case of a choice, when every step waiting for
 * it comes after it in that case ("up to 3k - match and pay"): that step, not a second read first.
 */
function ownInCase(flow: readonly FlowStep[], toolName: string, pending: string): StepSpec | undefined {
  const users = toolStepsOf(flow).filter((s) => waitsFor(s, pending));
  if (users.length === 0 || choicesOf(flow).some((c) => c.choose.some((b) => b.when.includes(pending))))
    return undefined;
  for (const c of choicesOf(flow))
    for (const steps of [...c.choose.map((b) => b.steps), c.else ?? []]) {
      const at = steps.findIndex((s) => 'tool' in s && (s as StepSpec).tool === toolName);
      if (at < 0) continue;
      const after = new Set(toolStepsOf(steps.slice(at + 1)));
      if (users.every((u) => after.has(u))) return steps[at] as StepSpec;
    }
  return undefined;
}

/**
 * Names the read steps the arguments of `flow` wait for: the request's own step of that tool when it
 * comes first, at the top level ("look them up, then grant it") or in the one case that needs it,
 * else a new step added first.
 * Returns the steps added (the caller counts them in the step limit); each is Assumed.
 */
export function placeImpliedReads(
  steps: DraftStep[],
  flow: FlowStep[],
  event: string | undefined,
  fill: (tool: ToolDescriptor) => Record<string, unknown>,
  ctx: RequestContext,
): DraftStep[] {
  const needs = new Map<string, { users: Set<string>; fields: Set<string> }>();
  const all = toolStepsOf(flow);
  const need = (v: unknown, user: string) => {
    if (typeof v === 'string')
      for (const m of v.matchAll(PENDING_RE)) {
        const n = needs.get(m[1]!) ?? { users: new Set(), fields: new Set() };
        n.users.add(user);
        n.fields.add(m[2]!);
        needs.set(m[1]!, n);
      }
  };
  for (const s of all) {
    for (const v of Object.values(s.args ?? {})) need(v, `${s.name} (${s.tool})`);
    need(s.if, `the test of ${s.name}`);
  }
  for (const c of choicesOf(flow)) for (const b of c.choose) need(b.when, `the test of ${c.name}`);
  const added: DraftStep[] = [];
  for (const [toolName, need] of needs) {
    const read = ctx.tools.find((t) => t.name === toolName)!;
    // The request's own read, said before every step that needs it: that one.
    const pending = `__implied__${toolName}__`;
    const firstUser = flow.findIndex(
      (s) =>
        toolStepsOf([s]).some((x) => waitsFor(x, pending)) ||
        choicesOf([s]).some((c) => c.choose.some((b) => b.when.includes(pending))),
    );
    const own = flow.findIndex((s) => 'tool' in s && (s as StepSpec).tool === toolName);
    const inCase = own >= 0 ? undefined : ownInCase(flow, toolName, pending);
    let name: string;
    if (inCase) {
      name = inCase.name;
      ctx.assumptions.push(
        `${[...need.users].join(' and ')} ${need.users.size > 1 ? 'take' : 'takes'} ${[...need.fields].join(', ')} from what ${name} (${toolName}) reads, in the same case.`,
      );
    } else if (own >= 0) {
      name = (flow[own] as StepSpec).name;
      ctx.assumptions.push(
        `${[...need.users].join(' and ')} ${need.users.size > 1 ? 'take' : 'takes'} ${[...need.fields].join(', ')} from what ${name} (${toolName}) reads.`,
      );
    } else {
      const taken = new Set(all.map((s) => s.name));
      const base = toolName.split(/[_.-]/)[0] || 'read';
      name = base;
      for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
      const step: StepSpec = { name, tool: toolName, args: fill(read) };
      flow.unshift(step);
      const d: DraftStep = { step, tool: read, approval: false };
      steps.unshift(d);
      added.push(d);
      ctx.assumptions.push(
        `${name} (${toolName}) is added first${event ? ` on each ${event}` : ''}: ${[...need.users].join(' and ')} ${need.users.size > 1 ? 'need' : 'needs'} what it reads (${[...need.fields].join(', ')}).`,
      );
    }
    if (own >= 0 && own >= firstUser)
      ctx.questions.push({
        about: `steps: ${name}`,
        question: `${[...need.users].join(' and ')} need${need.users.size > 1 ? '' : 's'} what ${toolName} reads (${[...need.fields].join(', ')}), but the request calls ${toolName} after. Should it run first?`,
      });
    const rename = <T>(v: T): T =>
      (typeof v === 'string'
        ? v.replace(PENDING_RE, (all, t: string, f: string) =>
            t === toolName ? `steps.${name}.output.${f}` : all,
          )
        : v) as T;
    for (const s of all) {
      if (s.args) for (const k of Object.keys(s.args)) s.args[k] = rename(s.args[k]);
      if (s.if !== undefined) s.if = rename(s.if);
    }
    for (const c of choicesOf(flow)) for (const b of c.choose) b.when = rename(b.when);
  }
  return added;
}
