/**
 * The bench workload, shared by every figure of `npm run bench`: a 3-step workflow whose steps
 * call idempotent, effect-free tools, each step reading the previous step's output. Also the tool
 * pack `keel worker --tools bench/bench-tools.ts` loads, so worker processes run the same tools.
 */
import type { ToolDefinition } from '../src/ports/index.ts';

export const tool = (name: string): ToolDefinition => ({
  name,
  description: `${name} (bench)`,
  args: {
    type: 'object',
    required: ['ticket_id'],
    properties: { ticket_id: { type: 'string' }, n: { type: 'integer' } },
  },
  destructive: false,
  effect: 'write',
  idempotent: true,
  scopes: [],
  handler: (a) => ({ ok: true, ticket: a.ticket_id }),
});

export const benchTools = (): ToolDefinition[] => [tool('step_a'), tool('step_b'), tool('step_c')];

export const SPEC = `
id: bench
version: 1
status: DRAFT
triggers: [{ event: bench.go }]
steps:
  - { name: a, tool: step_a, args: { ticket_id: "{{event.subject}}", n: 1 } }
  - { name: b, tool: step_b, args: { ticket_id: "{{steps.a.output.ticket}}", n: 2 } }
  - { name: c, tool: step_c, args: { ticket_id: "{{steps.b.output.ticket}}", n: 3 } }
limits: { maxSteps: 3, maxCostUsd: 0 }
`;

export default benchTools;
