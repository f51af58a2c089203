// Allowed: strings (and comments) that merely mention Date.now(), Math.random() or process.env.
import { defineWorkflow } from 'keel/plan';

// Date.now() and Math.random() in a comment are not calls.
const text = 'Date.now() and Math.random() and process.env.HOME and require("fs")';

export default defineWorkflow({
  id: 'strings',
  version: 1,
  status: 'DRAFT',
  description: `${text}; also \`setTimeout\``,
  triggers: [],
  steps: [{ name: 'say', tool: 'draft_reply', args: { body: 'fetch("https://example.com")' } }],
  limits: { maxSteps: 1, maxCostUsd: 0 },
});
