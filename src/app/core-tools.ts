/**
 * Tools every Keel instance has: the small, effect-free building blocks the OpenWOP conformance
 * fixtures are made of. They read nothing but their arguments, so they are idempotent reads.
 */
import type { ToolDefinition } from '../ports/index.ts';

const pure = { destructive: false, effect: 'read', idempotent: true, scopes: [] } as const;

export const CORE_TOOLS: readonly ToolDefinition[] = [
  {
    ...pure,
    name: 'core.noop',
    description: 'Does nothing and returns an empty object.',
    args: { type: 'object' },
    handler: () => ({}),
  },
  {
    ...pure,
    name: 'core.identity',
    description: 'Returns its arguments unchanged.',
    args: { type: 'object' },
    handler: (args) => args,
  },
  {
    ...pure,
    name: 'core.conformance.nondeterminism',
    description:
      'Returns one string per declared source, from values the run drew (and recorded) in its arguments.',
    args: {
      type: 'object',
      required: ['clock', 'random', 'id', 'env'],
      properties: { clock: { type: 'string' }, random: { type: 'string' }, id: { type: 'string' }, env: {} },
      additionalProperties: false,
    },
    handler: (args) => ({
      clock: String(args.clock),
      random: String(args.random),
      id: String(args.id),
      env: String(args.env),
    }),
  },
];
