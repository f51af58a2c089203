// Allowed: the module's own declarations named like host or built-in globals are the module's own.
import { defineWorkflow } from 'keel/plan';

const process = { env: { REGION: 'eu' } };
const Math = { random: () => 0.5 };
function setTimeout(label: string): string {
  return label;
}

export default defineWorkflow({
  id: 'shadowed',
  version: 1,
  status: 'DRAFT',
  triggers: [],
  steps: [
    {
      name: 'say',
      tool: 'draft_reply',
      args: { region: process.env.REGION, p: Math.random(), t: setTimeout('later') },
    },
  ],
  limits: { maxSteps: 1, maxCostUsd: 0 },
});
