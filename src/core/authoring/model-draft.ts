/**
 * The model-backed compiler's two pure halves: the prompt and strict JSON Schema a model is asked
 * with, and the reading of its answer into the same `CompiledRequest` the offline compiler gives.
 * What the model says is data: it is put through `draftSpec` exactly like an offline draft (spec
 * schema, tool registry, argument schemas), its status is always DRAFT, a tool it names outside the
 * catalog is a question, and its own questions are kept. Calling the model is the caller's (the CLI).
 */

import { isSpecId } from '../spec/validate-spec.ts';
import type { JsonSchema } from '../tools/tool-descriptor.ts';
import type { CompiledRequest, CompileOptions, DraftCatalog, DraftQuestion } from './compiled-request.ts';

/** What the model must answer: a spec's triggers, steps and limits, and its own questions. */
export const DRAFT_ANSWER_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['triggers', 'steps', 'limits', 'questions'],
  properties: {
    triggers: {
      type: 'array',
      maxItems: 4,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['event'],
        properties: { event: { type: 'string' }, when: { type: 'string' } },
      },
    },
    steps: {
      type: 'array',
      maxItems: 32,
      items: { anyOf: [{ $ref: '#/$defs/toolStep' }, { $ref: '#/$defs/chooseStep' }] },
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      required: ['maxSteps', 'maxCostUsd'],
      properties: { maxSteps: { type: 'integer', minimum: 1 }, maxCostUsd: { type: 'number', minimum: 0 } },
    },
    questions: { type: 'array', maxItems: 20, items: { type: 'string' } },
  },
  $defs: {
    /** A tool call; `if` (a condition over payload.<field> or an earlier step's output) skips it when false. */
    toolStep: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'tool', 'args'],
      properties: {
        name: { type: 'string' },
        tool: { type: 'string' },
        args: { type: 'object' },
        if: { type: 'string' },
      },
    },
    /** Ordered branches: the first whose `when` holds runs its steps, else `else` (one level: tool steps only). */
    chooseStep: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'choose'],
      properties: {
        name: { type: 'string' },
        choose: {
          type: 'array',
          minItems: 1,
          maxItems: 8,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['when', 'steps'],
            properties: {
              when: { type: 'string' },
              steps: { type: 'array', maxItems: 16, items: { $ref: '#/$defs/toolStep' } },
            },
          },
        },
        else: { type: 'array', maxItems: 16, items: { $ref: '#/$defs/toolStep' } },
      },
    },
  },
};

/** The prompt: the request, the catalog's events, and the rules a draft must keep. */
export function draftPrompt(request: string, catalog: DraftCatalog): string {
  const events = (catalog.events ?? []).map(
    (e) => `- ${e.type}: payload ${e.payload.join(', ') || '(no known fields)'}`,
  );
  return [
    'Turn this request into a Keel workflow spec: triggers (event type, optional `when` condition over payload.<field>),',
    'steps (name, tool from the catalog only, args; templates {{event.subject}} or {{event.payload.<field>}}),',
    'limits (maxSteps, maxCostUsd in dollars). Never invent a tool or a field: put anything you cannot map, or',
    'anything ambiguous, into questions instead of guessing.',
    'Money: maxCostUsd never above the smallest dollar amount the request states; "never more than X" is a cap,',
    'never a condition `amount > X`; an amount in another currency is a question. Call a tool that moves money',
    'or is destructive once on any path. A condition on one action is that step\'s `if`; "otherwise"/"else" is a',
    'choose step (name, choose: [{when, steps}], else: steps) whose branches hold tool steps only.',
    events.length ? `Known events:\n${events.join('\n')}` : 'No events are known.',
    `Request: ${request}`,
  ].join('\n');
}

/** A model's answer as a compiled request; anything malformed in it becomes a question. */
export function readModelDraft(
  answer: unknown,
  request: string,
  catalog: DraftCatalog,
  options: CompileOptions = {},
): CompiledRequest {
  const questions: DraftQuestion[] = [];
  const ask = (about: string, question: string) => questions.push({ about, question });
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
    ask('model', 'The model did not answer a draft (not a JSON object). Draft again, or offline.');
    return { questions, notes: [] };
  }
  const a = answer as Record<string, unknown>;
  for (const q of Array.isArray(a.questions) ? a.questions : [])
    if (typeof q === 'string' && q.trim() !== '') ask('model', q.slice(0, 500));
  const names = new Set(catalog.tools.map((t) => t.name));
  const steps = Array.isArray(a.steps) ? a.steps : [];
  for (const tool of namedTools(steps))
    if (typeof tool !== 'string' || !names.has(tool))
      ask(
        'steps',
        `The model named ${JSON.stringify(tool)}, which is not in the tool catalog. Which tool is meant?`,
      );
  const triggers = Array.isArray(a.triggers) ? a.triggers : [];
  const known = catalog.events?.map((e) => e.type);
  for (const t of triggers) {
    const event = (t as { event?: unknown })?.event;
    if (known && typeof event === 'string' && !known.includes(event))
      ask(
        'triggers',
        `The model named the event ${JSON.stringify(event)}, which is not known. Which event starts this workflow?`,
      );
  }
  if (steps.length === 0) {
    if (questions.length === 0) ask('steps', 'The model drafted no steps. What should the workflow do?');
    return { questions, notes: [] };
  }
  const id = options.id ?? 'draft';
  // Validation (draftSpec) judges the rest; the status is DRAFT whatever the model said.
  const spec = {
    id: isSpecId(id) ? id : 'draft',
    version: 1,
    status: 'DRAFT',
    description: request.replace(/\s+/g, ' ').trim().slice(0, 300),
    triggers,
    steps,
    limits: a.limits,
  } as unknown as NonNullable<CompiledRequest['spec']>;
  return {
    spec,
    questions,
    notes: ['Drafted by a model: check every step against the read-back.'],
    // The same safety checks as an offline draft, against the request as written.
    request,
  };
}

/**
 * The tool each step of a model's answer names, a choice's branches and `else` included (a step
 * that is neither a tool call nor a choice names `undefined`, so it is asked about).
 */
function namedTools(steps: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const s of steps) {
    const o = (typeof s === 'object' && s !== null ? s : {}) as Record<string, unknown>;
    if (Array.isArray(o.choose) && !Object.hasOwn(o, 'tool')) {
      for (const b of o.choose) {
        const inner = (b as { steps?: unknown } | null)?.steps;
        out.push(...namedTools(Array.isArray(inner) ? inner : []));
      }
      if (Array.isArray(o.else)) out.push(...namedTools(o.else));
    } else out.push(o.tool);
  }
  return out;
}
