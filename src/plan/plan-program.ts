/**
 * The TypeScript program the determinism check reasons with.
 *
 * Owns the fixed compiler options: the ES2023 library and nothing else (no DOM, no @types, so every
 * host global is unresolved and the check can refuse it), `keel/plan` mapped to Keel's own
 * `defineWorkflow`, and the exact texts under check (what is checked is what gets loaded). Never
 * reads the user's tsconfig: the world a plan module sees must not depend on where it is checked.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The declaration file of `defineWorkflow`; an import resolving here is the only one allowed. Run
 * from the sources it is define-workflow.ts; run from the build (dist/), its declaration file.
 */
export const HELPER_FILE = resolve(
  fileURLToPath(
    new URL(
      import.meta.url.endsWith('.ts') ? './define-workflow.ts' : './define-workflow.d.ts',
      import.meta.url,
    ),
  ),
);

export interface PlanSource {
  /** The path as the user gave it; findings name it this way. */
  readonly path: string;
  /** The exact text to check (and later to load). */
  readonly text: string;
}

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ['lib.es2023.d.ts'],
  types: [],
  strict: true,
  noEmit: true,
  allowImportingTsExtensions: true,
  skipLibCheck: true,
  paths: { 'keel/plan': [HELPER_FILE], keel: [HELPER_FILE] },
};

/** TypeScript's library, and Keel's own sources (what keel/plan imports), never change within a process. */
const STABLE_DIRS = [
  resolve(dirname(ts.getDefaultLibFilePath(OPTIONS))),
  resolve(dirname(HELPER_FILE), '..'),
  resolve(dirname(HELPER_FILE), '..', '..', 'node_modules'),
].map((d) => `${d}/`);

/** Parsed once per process: the files under STABLE_DIRS. */
const parsed = new Map<string, ts.SourceFile>();

export interface PlanProgram {
  readonly program: ts.Program;
  readonly checker: ts.TypeChecker;
  /** Each source under check with its parsed file, in the order given. */
  readonly files: readonly { readonly source: PlanSource; readonly sf: ts.SourceFile }[];
}

export function createPlanProgram(sources: readonly PlanSource[]): PlanProgram {
  const texts = new Map(sources.map((s) => [resolve(s.path), s.text]));
  const host = ts.createCompilerHost(OPTIONS, true);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => texts.has(resolve(f)) || fileExists.call(host, f);
  host.readFile = (f) => texts.get(resolve(f)) ?? readFile.call(host, f);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const abs = resolve(fileName);
    const text = texts.get(abs);
    if (text !== undefined) return ts.createSourceFile(fileName, text, languageVersion, true);
    const cacheable = STABLE_DIRS.some((d) => abs.startsWith(d));
    const hit = cacheable ? parsed.get(abs) : undefined;
    if (hit) return hit;
    const sf = getSourceFile.call(host, fileName, languageVersion, onError, shouldCreate);
    if (sf && cacheable) parsed.set(abs, sf);
    return sf;
  };
  const program = ts.createProgram([...texts.keys()], OPTIONS, host);
  const files = sources.map((source) => {
    const sf = program.getSourceFile(resolve(source.path));
    if (!sf) throw new Error(`internal: ${source.path} is missing from the plan program`);
    return { source, sf };
  });
  return { program, checker: program.getTypeChecker(), files };
}
