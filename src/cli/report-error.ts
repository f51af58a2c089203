/**
 * How the CLI reports a failure: one line on stderr, `error: <message> [<code>]`, then, for a spec
 * or plan module, its problems one a line; with --json, the error as one JSON object. The exit code
 * comes from exit-codes.ts. A person's mistake never ends in a stack trace: only an internal error
 * (not a KeelError) has one, and it is printed only with KEEL_DEBUG=1. Commander's own refusals
 * (an unknown option, a missing argument) are printed the same way, with code `usage`.
 */
import type { Command } from 'commander';
import pc from 'picocolors';
import { ensureError, isKeelError, type KeelError } from '../core/errors.ts';
import { formatProblem, type SpecProblem } from '../core/spec/spec-problem.ts';
import { formatFinding, type PlanFinding } from '../plan/plan-finding.ts';
import { exitCodeFor } from './exit-codes.ts';
import { commandPath } from './store-access.ts';

/** KEEL_DEBUG=1 (or true, yes): print the stack trace of an internal error. */
export function debugEnabled(): boolean {
  return /^(1|true|yes)$/i.test(process.env.KEEL_DEBUG?.trim() ?? '');
}

/** Prints `e` for a person (or as JSON) and sets the exit code. `command` is what they ran (`runs ls`). */
export function reportError(e: unknown, json: boolean, command?: string): void {
  const err = ensureError(e);
  const keel = isKeelError(err) ? err : undefined;
  const hint = keel && command !== undefined ? hintFor(command, keel) : undefined;
  const message = oneLine(hint ? `${err.message}; ${hint}` : err.message);
  if (json) {
    const body = keel
      ? { ...keel.toJSON(), message }
      : { error: 'internal', message, ...(debugEnabled() && err.stack ? { stack: err.stack } : {}) };
    process.stderr.write(`${JSON.stringify(body)}\n`);
  } else {
    const code = keel ? keel.code : 'internal';
    const debug = keel || debugEnabled() ? '' : ' (set KEEL_DEBUG=1 to print the stack trace)';
    process.stderr.write(`${pc.red('error')}: ${message} ${pc.dim(`[${code}]`)}${debug}\n`);
    const problems = keel ? (keel.details.problems as SpecProblem[] | undefined) : undefined;
    if (Array.isArray(problems) && problems.length > 1) {
      for (const p of problems)
        process.stderr.write(
          `  - ${'file' in p ? formatProblem(p) : `${(p as { field: string }).field}: ${(p as { message: string }).message}`}\n`,
        );
    }
    const findings = keel ? (keel.details.findings as PlanFinding[] | undefined) : undefined;
    if (Array.isArray(findings) && findings.length > 1)
      for (const f of findings) process.stderr.write(`  - ${formatFinding(f)}\n`);
    if (!keel && debugEnabled()) process.stderr.write(`${err.stack ?? ''}\n`);
  }
  process.exitCode = exitCodeFor(err);
}

/** A message on one line: the first line of the report is the whole error. */
function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ').trim();
}

/** What to do next, where the command and the refusal together say more than the message. */
function hintFor(command: string, e: KeelError): string | undefined {
  const status = e.details.status ?? e.details.runStatus;
  if (command === 'pause' && e.code === 'run_state' && status === 'waiting_approval')
    return 'a run waiting for approval is held already: nothing runs until a person decides (keel approve or keel deny), and keel cancel ends it';
  if (command === 'pause' && e.code === 'run_state' && status === 'paused')
    return 'it is paused already; keel unpause walks on';
  return undefined;
}

/**
 * Commander's refusals (unknown option, missing argument, bad choice) as one line with code
 * `usage` (or a JSON error with --json), naming where to find the command's options; no help dump.
 */
export function reportUsageErrors(program: Command, json: boolean): void {
  const visit = (cmd: Command) => {
    cmd.configureOutput({
      outputError: (str, write) => {
        let message = oneLine(str.replace(/^error:\s*/, ''));
        // `-V, --version` is listed in the root's help but is no option of a command without its own.
        if (cmd.parent && !cmd.options.some((o) => o.long === '--version'))
          message = message.replace(/ \(Did you mean --version\?\)/, '');
        const path = commandPath(cmd);
        const help = `keel ${path ? `${path} ` : ''}--help`;
        write(
          json
            ? `${JSON.stringify({ error: 'usage', message, details: { command: path, help } })}\n`
            : `${pc.red('error')}: ${message} (${help} lists the usage) ${pc.dim('[usage]')}\n`,
        );
      },
    });
    for (const c of cmd.commands) visit(c);
  };
  visit(program);
}
