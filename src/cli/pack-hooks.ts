/**
 * Module hooks (registered with node:module's `register` by tool-pack.ts before a tool pack is
 * imported) so a pack loads wherever it lies:
 *
 * - `resolve`: a pack that imports `keel` or `keel/…` where no Keel is installed beside it (a
 *   project made by `keel init` with a linked or global `keel`) gets the Keel running it, found
 *   from this module's own package; where a Keel is installed beside it, that one is used as Node
 *   would. Any other specifier, and any other failure, is left as Node's loader chain answers.
 * - `load`: Node 20 cannot strip types, so when the rest of the chain refuses a `.ts`/`.mts` file
 *   (ERR_UNKNOWN_FILE_EXTENSION) it is transpiled with the `typescript` package (`transpileModule`:
 *   types removed, nothing type-checked) and loaded as an ES module. A loader that already compiles
 *   TypeScript (tsx, in Keel's own tests) goes first and is left to do it.
 *
 * Runs on Node's loader thread; it must never change how any other file loads.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

type LoadResult = {
  format?: string | null;
  source?: string | ArrayBuffer | Uint8Array;
  shortCircuit?: boolean;
};
type NextLoad = (url: string, context?: unknown) => Promise<LoadResult>;
type ResolveContext = { parentURL?: string; conditions?: readonly string[]; importAttributes?: object };
type ResolveResult = { url: string; format?: string | null; shortCircuit?: boolean };
type NextResolve = (specifier: string, context?: ResolveContext) => Promise<ResolveResult>;

const TYPESCRIPT_FILE = /\.m?ts$/;
const KEEL_SPECIFIER = /^keel(\/|$)/;

export async function resolve(
  specifier: string,
  context: ResolveContext,
  nextResolve: NextResolve,
): Promise<ResolveResult> {
  if (!KEEL_SPECIFIER.test(specifier)) return nextResolve(specifier, context);
  try {
    return await nextResolve(specifier, context);
  } catch (e) {
    if ((e as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw e;
  }
  // Resolved from inside Keel's own package: a package may import itself by its name (its exports).
  return nextResolve(specifier, { ...context, parentURL: import.meta.url });
}

export async function load(url: string, context: unknown, nextLoad: NextLoad): Promise<LoadResult> {
  if (!url.startsWith('file:') || !TYPESCRIPT_FILE.test(new URL(url).pathname)) return nextLoad(url, context);
  try {
    return await nextLoad(url, context);
  } catch (e) {
    if ((e as { code?: unknown }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw e;
  }
  const { default: ts } = await import('typescript');
  const fileName = fileURLToPath(url);
  const { outputText } = ts.transpileModule(await readFile(fileName, 'utf8'), {
    fileName,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      sourceMap: false,
      inlineSourceMap: false,
    },
  });
  return { format: 'module', source: outputText, shortCircuit: true };
}
