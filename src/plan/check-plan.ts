/**
 * `keel check`: the static determinism check of plan modules, with the TypeScript type checker.
 *
 * Owns the entry points (texts in memory, or files and directories on disk) and the order of the
 * findings. Fails closed: a file that cannot be read or parsed is a finding or an error, never a
 * pass. Never evaluates a plan module; loading is `load-plan-module.ts`, and it calls this first.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { limitError, SPEC_LIMITS } from '../core/spec/index.ts';
import { checkModuleShape } from './check-module-shape.ts';
import { checkReferences } from './check-references.ts';
import { isPlanModulePath } from './is-plan-module-path.ts';
import { compareFindings, type PlanFinding } from './plan-finding.ts';
import { createPlanProgram, type PlanSource } from './plan-program.ts';
import { RuleContext } from './rule-context.ts';

export interface CheckResult {
  /** The files checked, as given (directories expanded to their `*.plan.ts` files). */
  readonly files: readonly string[];
  /** Every finding, ordered by file, line and column. Empty means the files passed. */
  readonly findings: readonly PlanFinding[];
}

/** Checks the given texts together (one program); each finding names its source's path. */
export function checkPlanSources(sources: readonly PlanSource[]): CheckResult {
  if (sources.length === 0) return { files: [], findings: [] };
  const { program, checker, files } = createPlanProgram(sources);
  const findings: PlanFinding[] = [];
  for (const { source, sf } of files) {
    const ctx = new RuleContext(program, checker, sf, source.path);
    checkModuleShape(ctx);
    // Without a syntax tree the checker's answers are guesses: a file that does not parse stops here.
    if (ctx.findings.every((f) => f.what !== 'syntax error')) checkReferences(ctx);
    findings.push(...ctx.findings);
  }
  return { files: sources.map((s) => s.path), findings: dedupe(findings).sort(compareFindings) };
}

/** Checks files and directories (recursively, their `*.plan.ts` files) on disk. */
export function checkPlanFiles(paths: readonly string[]): CheckResult {
  const files = paths.flatMap(expand);
  return checkPlanSources(files.map((path) => ({ path, text: readPlanText(path) })));
}

/**
 * Reads a plan module's text; a missing or unreadable file is a usage error naming the path, and
 * one larger than a spec may be (SPEC_LIMITS.maxBytes) is `payload_too_large`, before any check.
 */
export function readPlanText(path: string): string {
  try {
    const st = statSync(path);
    if (!st.isFile() && !st.isDirectory())
      throw new KeelError(ErrorCode.usage, `plan module ${path}: not a regular file`, { path });
    if (st.size > SPEC_LIMITS.maxBytes)
      throw limitError(
        { limit: 'maxBytes', max: SPEC_LIMITS.maxBytes, got: st.size, field: '', path: [] },
        `plan module ${path}`,
      );
    return readFileSync(path, 'utf8');
  } catch (e) {
    if (e instanceof KeelError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (e as Error).message;
    throw new KeelError(ErrorCode.usage, `plan module ${path}: ${why}`, { path });
  }
}

function expand(path: string): string[] {
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new KeelError(ErrorCode.usage, `plan module ${path}: no such file or directory`, { path });
  }
  if (!isDir) {
    // TypeScript would not even load another kind of file; a spec in YAML or JSON has `keel validate`.
    if (!isPlanModulePath(path))
      throw new KeelError(
        ErrorCode.usage,
        `${path}: not a plan module (a *.plan.ts file); check a YAML or JSON spec with \`keel validate ${path}\``,
        { path },
      );
    return [path];
  }
  const found = walk(path).sort();
  if (found.length === 0)
    throw new KeelError(ErrorCode.usage, `${path}: no *.plan.ts files in this directory`, { path });
  return found;
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(full));
    else if (entry.isFile() && entry.name.endsWith('.plan.ts')) out.push(full);
  }
  return out;
}

function dedupe(findings: PlanFinding[]): PlanFinding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = `${f.file}\0${f.line}\0${f.column}\0${f.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
