/**
 * What both demos use of Keel's example, the support desk (examples/support-desk): where it lies
 * and its module, loaded from its directory like a tool pack — its source beside Keel's sources,
 * its build beside Keel's build — never imported by the CLI.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pc from 'picocolors';
import type { ToolDefinition } from '../ports/index.ts';
import { EXIT } from './exit-codes.ts';
import { printJson } from './output.ts';

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

/** A demo's checks: each printed as it is made, then counted into the closing line and exit code. */
export class DemoChecks {
  readonly checks: { what: string; ok: boolean }[] = [];
  private readonly started = performance.now();

  constructor(private readonly say: (text?: string) => void) {}

  expect(what: string, ok: boolean): void {
    this.checks.push({ what, ok });
    this.say(`  ${ok ? pc.green('✓') : pc.red('✗')} ${what}`);
  }

  /** Prints the closing line; `extra` goes to the JSON result. Returns the exit code. */
  finish(o: { json: boolean; keptIn?: string }, extra: Record<string, unknown>): number {
    const ms = Math.round(performance.now() - this.started);
    const ok = this.checks.every((c) => c.ok);
    this.say();
    this.say(
      `${ok ? pc.green('demo passed') : pc.red('demo FAILED')}: ${this.checks.filter((c) => c.ok).length}/${this.checks.length} checks in ${ms} ms` +
        (o.keptIn ? `; store kept in ${o.keptIn}` : ''),
    );
    if (o.json) printJson({ ok, checks: this.checks, ms, ...extra });
    return ok ? EXIT.ok : EXIT.internal;
  }
}
