/**
 * Module hooks (registered with node:module's `register` by tool-pack.ts) that let Node 20 load a
 * TypeScript tool pack: when the rest of the loader chain refuses a `.ts`/`.mts` file
 * (ERR_UNKNOWN_FILE_EXTENSION: Node 20 cannot strip types), the file is transpiled with the
 * `typescript` package (`transpileModule`: types removed, nothing type-checked) and loaded as an
 * ES module. A loader that already compiles TypeScript (tsx, in Keel's own tests) goes first and is
 * left to do it. Runs on Node's loader thread; it must never change how any other file loads.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

type LoadResult = {
  format?: string | null;
  source?: string | ArrayBuffer | Uint8Array;
  shortCircuit?: boolean;
};
type NextLoad = (url: string, context?: unknown) => Promise<LoadResult>;

const TYPESCRIPT_FILE = /\.m?ts$/;

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
