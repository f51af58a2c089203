/**
 * How tests and benchmarks start the real `keel` command from the TypeScript sources: `node` with
 * these arguments, then the command's own (src/cli/keel-command.ts through tsx, so no build is
 * needed and what runs is what was just edited). bin/keel.js runs the same module built.
 * tsx is named by its file URL, so children run from any working directory.
 */
import { fileURLToPath } from 'node:url';

export const KEEL_SOURCE_ENTRY = fileURLToPath(new URL('../cli/keel-command.ts', import.meta.url));

/** `node ...KEEL_COMMAND ...args` runs `keel ...args`. */
export const KEEL_COMMAND: readonly string[] = ['--import', import.meta.resolve('tsx'), KEEL_SOURCE_ENTRY];
