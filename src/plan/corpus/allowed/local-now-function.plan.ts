// Allowed: a local function named `now` is the module's own, not Date.now.
import { defineWorkflow } from 'keel/plan';

function now(): string {
  return '{{clock.now}}';
}
const later = () => now();

export default defineWorkflow({
  id: 'local-now',
  version: 1,
  status: 'DRAFT',
  triggers: [],
  steps: [{ name: 'stamp', tool: 'draft_reply', args: { at: now(), again: later() } }],
  limits: { maxSteps: 1, maxCostUsd: 0 },
});
