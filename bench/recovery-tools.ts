/** The recovery bench's workflow and tools: a slow idempotent first step, then a quick one. */
import type { ToolDefinition } from '../src/ports/index.ts';

export const RECOVERY_SPEC = `
id: recovery
version: 1
status: DRAFT
triggers: [{ event: bench.recover }]
steps:
  - { name: slow, tool: slow_step }
  - { name: done, tool: quick_step }
limits: { maxSteps: 2, maxCostUsd: 0 }
`;

const base = {
  args: { type: 'object' },
  destructive: false,
  effect: 'write',
  idempotent: true,
  scopes: [],
} as const;

/** `slow` is what the first step's call does (the killed process hangs there; the bench's returns). */
export const recoveryTools = (slow: () => unknown): ToolDefinition[] => [
  { ...base, name: 'slow_step', description: 'the step a crash interrupts', handler: async () => slow() },
  { ...base, name: 'quick_step', description: 'the step after it', handler: () => ({ ok: true }) },
];
