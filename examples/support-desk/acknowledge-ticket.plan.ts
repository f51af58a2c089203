// A workflow written in TypeScript (a plan module). `keel check` proves it reads nothing of the
// world (no clock, randomness, I/O); `keel publish` evaluates it in a sandbox and publishes the spec
// it exports, like a YAML spec.
import { defineWorkflow, type StepSpec } from 'keel/plan';

const tag: StepSpec = {
  name: 'tag',
  tool: 'tag_ticket',
  args: { ticket_id: '{{event.subject}}', tag: 'acknowledged' },
};

const reply: StepSpec = {
  name: 'reply',
  tool: 'draft_reply',
  args: {
    ticket_id: '{{event.subject}}',
    body: 'Thanks for writing in. We have your ticket and will answer within one business day.',
  },
};

export default defineWorkflow({
  id: 'acknowledge-ticket',
  version: 1,
  status: 'DRAFT',
  description: 'Tag a new ticket and draft an acknowledgement.',
  triggers: [{ event: 'ticket.opened' }],
  steps: [tag, reply],
  limits: { maxSteps: 2, maxCostUsd: 0 },
});
