// Forbidden: only named imports of defineWorkflow can be injected into the sandbox.
import * as keel from 'keel/plan'; // expect: import "keel/plan"

export default keel.defineWorkflow({
  id: 'ns',
  version: 1,
  status: 'DRAFT',
  triggers: [],
  steps: [],
  limits: { maxSteps: 1, maxCostUsd: 0 },
});
