/**
 * `keel init`: copies the support-desk example (specs in YAML and a plan module, and events) into a
 * project directory so a newcomer has files to validate, check, publish and emit, and writes the project's tool pack,
 * keel.tools.mjs, which hands the example's tools (the `keel/support-desk` module) to every command
 * run in that directory. Never overwrites an existing file.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const EXAMPLE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'support-desk');

/** The project's tool pack as `keel init` writes it. */
export const INIT_TOOL_PACK = 'keel.tools.mjs';

const TOOL_PACK_TEXT = `// This project's tools. Every keel command run in this directory loads this module (a tool pack:
// its default export is an array of tool definitions, or a function returning one); --tools or
// KEEL_TOOLS name another. These are Keel's support-desk example tools (draft_reply, tag_ticket,
// issue_refund, close_ticket) over a small helpdesk in .keel/helpdesk.db (or HELPDESK_DB), for
// the workflows in ./workflows. Replace them with your own.
export { default } from 'keel/support-desk';
`;

/**
 * A workflow written in TypeScript, for `keel check` and `keel publish` to show what a plan module
 * is. Written as text (like the tool pack): the package ships compiled JavaScript, and a plan module
 * is data for Keel's own checker and sandbox, never compiled with the project.
 */
export const INIT_PLAN_MODULE = join('workflows', 'acknowledge-ticket.plan.ts');

const PLAN_MODULE_TEXT = `// A workflow written in TypeScript (a plan module). \`keel check\` proves it reads nothing of the
// world (no clock, randomness, I/O); \`keel publish\` evaluates it in a sandbox and publishes the
// spec it exports, like a YAML spec.
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
`;

export function initProject(dir: string): string[] {
  const written: string[] = [];
  const write = (to: string, put: (to: string) => void) => {
    if (existsSync(to)) return;
    mkdirSync(dirname(to), { recursive: true });
    put(to);
    written.push(relative(process.cwd(), to) || to);
  };
  const copy = (from: string, to: string) => write(to, (t) => copyFileSync(from, t));
  // The example's workflows; its hooks file (keel.hooks.yaml, whose secrets a new project lacks) is not one.
  for (const f of readdirSync(EXAMPLE).filter((f) => f.endsWith('.yaml') && !f.startsWith('keel.')))
    copy(join(EXAMPLE, f), join(dir, 'workflows', f));
  for (const f of readdirSync(join(EXAMPLE, 'events')))
    copy(join(EXAMPLE, 'events', f), join(dir, 'events', f));
  write(join(dir, INIT_PLAN_MODULE), (t) => writeFileSync(t, PLAN_MODULE_TEXT));
  write(join(dir, INIT_TOOL_PACK), (t) => writeFileSync(t, TOOL_PACK_TEXT));
  return written;
}
