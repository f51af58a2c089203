// Forbidden: Date.now() reads the host clock, so every load would yield another spec.
import { defineWorkflow } from 'keel/plan';

export default defineWorkflow({
  id: 'stamped',
  version: 1,
  status: 'DRAFT',
  description: `built at ${Date.now()}`, // expect: Date.now
  triggers: [],
  steps: [],
  limits: { maxSteps: 1, maxCostUsd: 0 },
});
