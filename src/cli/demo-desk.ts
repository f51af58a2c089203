/**
 * What both demos use of Keel's example, the support desk (examples/support-desk): where it lies
 * and its module, loaded from its directory like a tool pack — its source beside Keel's sources,
 * its build beside Keel's build — never imported by the CLI.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ToolDefinition } from '../ports/index.ts';

export const EXAMPLE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'support-desk');

/** What the demos use of the example's module (examples/support-desk/index.ts). */
export interface SupportDesk {
  Helpdesk: new (
    path: string,
    o?: { refundLimitCents?: number },
  ) => {
    refunds(ticketId?: string): { amount_cents: number }[];
    ticket(id: string): { status: string };
    calls(tool?: string): number;
    openTicket(id: string, customer: string): unknown;
    shutdown(): void;
  };
  supportDeskTools(desk: unknown): ToolDefinition[];
}

export async function loadSupportDesk(): Promise<SupportDesk> {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  return (await import(pathToFileURL(join(EXAMPLE, `index${ext}`)).href)) as SupportDesk;
}
