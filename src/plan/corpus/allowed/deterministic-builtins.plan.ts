// Allowed: deterministic built-ins (Math without random, Date.UTC/parse, JSON, Object, Array, String).
import { defineWorkflow } from 'keel/plan';

const cap = Math.min(Math.max(10, 20), Math.floor(Math.PI * 100));
const when = Date.parse('2026-03-01T00:00:00Z');
const config = JSON.parse('{"region":"eu"}') as { region: string };
const keys = Object.keys({ b: 1, a: 2 }).sort();
const isDate = (v: unknown) => v instanceof Date;

export default defineWorkflow({
  id: 'builtins',
  version: 1,
  status: 'DRAFT',
  triggers: [],
  steps: [
    {
      name: 'note',
      tool: 'draft_reply',
      args: { cap, when, region: config.region, keys, label: String(isDate(0)).toUpperCase() },
    },
  ],
  limits: { maxSteps: 1, maxCostUsd: 0 },
});
