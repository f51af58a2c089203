// Allowed: ordinary data building with computed keys the checker cannot name — reads of data,
// writes, numeric indexes, keys of a literal union, a Map of functions, constructor as a key of data.
import { defineWorkflow } from 'keel/plan';

const prices: Record<string, number> = { basic: 10, pro: 30 };
const tiers = ['basic', 'pro'];
const totals: Record<string, number> = {};
for (const sku of tiers) totals[sku] = (prices[sku] ?? 0) * 2;
const copy: Record<string, number> = {};
for (const k of Object.keys(prices)) copy[k] = prices[k]!;
const labels = { basic: 'Basic', pro: 'Pro' } as const;
const pick = (t: keyof typeof labels) => labels[t];
const first = tiers[0]!;
const byIndex = tiers[tiers.length - 1];
const steps = new Map<string, (n: number) => number>([['double', (n) => n * 2]]);
const double = steps.get('double')?.(21) ?? 0;
const record = { constructor: 'a field of data' };
const when = new Date(0);
const isDate = when instanceof Date;

export default defineWorkflow({
  id: 'computed-reads',
  version: 1,
  status: 'DRAFT',
  triggers: [],
  steps: [
    {
      name: 'note',
      tool: 'draft_reply',
      args: { totals, copy, label: pick('pro'), first, byIndex, double, field: record.constructor.length, isDate },
    },
  ],
  limits: { maxSteps: 1, maxCostUsd: 0 },
});
