// Allowed: ordinary code that builds the spec: helpers, loops, classes, enums, an aliased defineWorkflow.
import { defineWorkflow as workflow, type StepSpec } from 'keel/plan';

enum Tier {
  Gold = 'gold',
  Silver = 'silver',
}

class StepBuilder {
  private readonly steps: StepSpec[] = [];
  add(name: string, tool: string, args: Record<string, unknown> = {}): this {
    this.steps.push({ name, tool, args });
    return this;
  }
  build(): StepSpec[] {
    return [...this.steps];
  }
}

const builder = new StepBuilder();
for (const tier of [Tier.Gold, Tier.Silver]) {
  builder.add(`notify_${tier}`, 'draft_reply', { tier, ticket_id: '{{event.subject}}' });
}
const steps = builder.build();

export default workflow({
  id: 'generated',
  version: 2,
  status: 'DRAFT',
  triggers: [{ event: 'ticket.opened', when: 'payload.priority >= 2' }],
  steps,
  limits: { maxSteps: steps.length, maxCostUsd: 0 },
});
