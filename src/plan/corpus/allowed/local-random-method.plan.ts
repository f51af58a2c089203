// Allowed: a local object with a `random` method is not Math.random.
import { defineWorkflow } from 'keel/plan';

const dice = { random: () => 4 };
const { random } = dice;

export default defineWorkflow({
  id: 'local-random',
  version: 1,
  status: 'DRAFT',
  triggers: [],
  steps: [{ name: 'roll', tool: 'draft_reply', args: { value: dice.random(), again: random() } }],
  limits: { maxSteps: 1, maxCostUsd: 0 },
});
