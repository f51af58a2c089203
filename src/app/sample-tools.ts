/**
 * The node types OpenWOP's sample clients name that are not Keel core tools: the sample pack's
 * `local.sample.demo.uppercase` and `local.sample.demo.mock-ai` (what the reference hosts ship so a
 * demo needs no model account) and the flow pack's `core.flow.merge`. Each reads nothing but its
 * arguments, so each is an idempotent read, and a run of them replays without calling anything.
 * A Keel instance has them unless its own tools declare the same name (the instance's win).
 */
import type { ToolDefinition } from '../ports/index.ts';

const pure = { destructive: false, effect: 'read', idempotent: true, scopes: [] } as const;

/** How `core.flow.merge` combines the values it is given. */
const MERGE_MODES = ['append', 'combine-by-position'] as const;

/** `append`: the inputs one after another (arrays flattened one level); `combine-by-position`: zipped. */
function merge(mode: string, inputs: readonly unknown[]): unknown[] {
  const lists = inputs.map((x) => (Array.isArray(x) ? x : [x]));
  if (mode === 'append') return lists.flat();
  const longest = Math.max(0, ...lists.map((l) => l.length));
  return Array.from({ length: longest }, (_, i) => lists.map((l) => l[i] ?? null));
}

export const SAMPLE_TOOLS: readonly ToolDefinition[] = [
  {
    ...pure,
    name: 'local.sample.demo.uppercase',
    description:
      "OpenWOP's sample node: returns {text} with its `text` argument in upper case ('' when absent).",
    args: { type: 'object', properties: { text: { type: 'string' } } },
    handler: (args) => ({ text: typeof args.text === 'string' ? args.text.toUpperCase() : '' }),
  },
  {
    ...pure,
    name: 'local.sample.demo.mock-ai',
    description:
      "OpenWOP's sample stand-in for a model completion: returns {completion: 'Mock response to: <prompt>'} (the prompt cut at 80 characters); calls no model.",
    args: { type: 'object', properties: { prompt: { type: 'string' } } },
    handler: (args) => ({
      completion: `Mock response to: ${typeof args.prompt === 'string' ? args.prompt.slice(0, 80) : ''}`,
    }),
  },
  {
    ...pure,
    name: 'core.flow.merge',
    description:
      'Fan-in: returns {merged}, its `inputs` (the values connected to it) combined by `mode`: append (default) lists them one after another, combine-by-position zips them position by position.',
    args: {
      type: 'object',
      properties: { mode: { enum: [...MERGE_MODES] }, inputs: { type: 'array' } },
    },
    handler: (args) => ({
      merged: merge(typeof args.mode === 'string' ? args.mode : 'append', (args.inputs as unknown[]) ?? []),
    }),
  },
];
