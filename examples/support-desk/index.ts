/**
 * The support desk as a tool pack: its four tools (tools.ts) over a small helpdesk in a SQLite
 * file (helpdesk.ts). The default export is what `--tools` loads: it opens the helpdesk named by
 * HELPDESK_DB, or ./.keel/helpdesk.db, and returns the tools. A project made by `keel init` loads
 * it through its keel.tools.ts (`export { default } from 'keel/support-desk'`); `keel demo` opens
 * a helpdesk of its own with the named exports. Keel's CLI never loads it otherwise.
 */
import { join } from 'node:path';
import type { ToolDefinition } from '../../src/ports/index.ts';
import { Helpdesk } from './helpdesk.ts';
import { supportDeskTools } from './tools.ts';

export { Helpdesk, type HelpdeskOptions, SEED_TICKETS, type Ticket } from './helpdesk.ts';
export { supportDeskTools } from './tools.ts';

/** Where the pack keeps its helpdesk unless HELPDESK_DB names a file. */
export const DEFAULT_HELPDESK = join('.keel', 'helpdesk.db');

/** The tool pack: the support desk's tools over the helpdesk in HELPDESK_DB (or ./.keel/helpdesk.db). */
export default function supportDeskPack(): ToolDefinition[] {
  const path = process.env.HELPDESK_DB?.trim() || DEFAULT_HELPDESK;
  return supportDeskTools(new Helpdesk(path));
}
