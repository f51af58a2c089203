// Allowed: type-only imports (whole-clause and inline) vanish before evaluation.
import type { StepSpec } from 'keel/plan';
import { defineWorkflow, type TriggerSpec } from 'keel/plan';

const step: StepSpec = { name: 'reply', tool: 'draft_reply', args: { ticket_id: '{{event.subject}}' } };
const trigger: TriggerSpec = { event: 'ticket.opened' };

export default defineWorkflow({
  id: 'typed',
  version: 1,
  status: 'DRAFT',
  triggers: [trigger],
  steps: [step],
  limits: { maxSteps: 1, maxCostUsd: 0 },
});
