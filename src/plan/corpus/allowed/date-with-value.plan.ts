// Allowed: a Date built from an explicit value is the same on every load (and in every time zone).
import { defineWorkflow } from 'keel/plan';

const epoch = new Date(0);
const launch = new Date('2026-01-01');
const cutoff = new Date(Date.UTC(2026, 5, 30));

export default defineWorkflow({
  id: 'dated',
  version: 1,
  status: 'DRAFT',
  description: `valid from ${launch.toISOString()} to ${cutoff.toISOString()}, epoch ${epoch.getTime()}`,
  triggers: [{ event: 'order.created', when: `payload.year >= ${launch.getUTCFullYear()}` }],
  steps: [{ name: 'note', tool: 'draft_reply', args: { since: launch.toISOString() } }],
  limits: { maxSteps: 1, maxCostUsd: 0 },
});
