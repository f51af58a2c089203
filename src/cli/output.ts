/**
 * Printing for people and for scripts: every read command prints JSON with --json, otherwise
 * short human lines. Colours only on a terminal (picocolors honours NO_COLOR).
 */
import pc from 'picocolors';
import type { HistoryLine } from '../app/index.ts';
import type { RunStatus, VerifyResult } from '../core/ledger/index.ts';

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function line(s = ''): void {
  process.stdout.write(`${s}\n`);
}

export function statusColor(status: RunStatus | string): string {
  switch (status) {
    case 'completed':
      return pc.green(status);
    case 'refused':
    case 'failed':
      return pc.red(status);
    case 'waiting_approval':
    case 'waiting':
    case 'outcome_unknown':
    case 'paused':
      return pc.yellow(status);
    case 'cancelled':
      return pc.dim(status);
    default:
      return status;
  }
}

export function printHistory(lines: readonly HistoryLine[], indent = ''): void {
  for (const l of lines) line(`${indent}${pc.dim(String(l.seq).padStart(3))}  ${l.text}`);
}

export function verifyText(runId: string, r: VerifyResult): string {
  return r.ok
    ? `${pc.green('verified')} ${runId}: ${r.entries} entries, chain intact, head seq ${r.head.seq}`
    : `${pc.red('FAILED')} ${runId}: seq ${r.failure.seq}: ${r.failure.code}: ${r.failure.message}`;
}
