// Allowed: the plan-module twin of examples/support-desk/refund-under-50.yaml (same spec, same hash).
import { defineWorkflow } from 'keel/plan';

const ticket = '{{event.subject}}';

export default defineWorkflow({
  id: 'refund-under-50',
  version: 1,
  status: 'DRAFT',
  description: 'Reply to the customer, then refund the requested amount if it is under $50.',
  triggers: [{ event: 'refund.requested', when: 'payload.currency == "USD"' }],
  steps: [
    {
      name: 'reply',
      tool: 'draft_reply',
      args: {
        ticket_id: ticket,
        body: 'Thanks for reaching out. We are processing your refund request now.',
      },
    },
    {
      name: 'refund',
      tool: 'issue_refund',
      args: { ticket_id: ticket, amount_usd: '{{event.payload.refund_amount}}' },
    },
  ],
  limits: { maxSteps: 4, maxCostUsd: 50 },
  tests: [
    {
      name: 'refunds 30',
      event: { type: 'refund.requested', subject: 'T-1001', payload: { refund_amount: 30, currency: 'USD' } },
      expect: { status: 'completed', steps: ['reply', 'refund'], args: { refund: { amount_usd: 30 } } },
    },
    {
      name: 'refuses 500 at the spend cap',
      event: { type: 'refund.requested', subject: 'T-1002', payload: { refund_amount: 500, currency: 'USD' } },
      expect: { status: 'refused', steps: ['reply', 'refund'], refusal: 'spend_cap_exceeded' },
    },
  ],
});
