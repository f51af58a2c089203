/**
 * Specs nested deep in every YAML shape, for the depth-limit tests (core, CLI, HTTP): a compact
 * sequence (`- - - 1`), a flow sequence, a flow mapping, pairs in flow sequences and block
 * mappings, each `n` levels under a step's argument `args.a`.
 */

/** The spec's text before the nested value of `steps[0].args.a`. */
export const DEEP_SPEC_HEAD =
  'id: deep\nversion: 1\nstatus: DRAFT\ntriggers: []\nsteps:\n  - tool: core.noop\n    args:\n      a:\n        ';

/** Each shape nested `n` levels, as the text that follows DEEP_SPEC_HEAD. */
export const DEEP_YAML_SHAPES: Readonly<Record<string, (n: number) => string>> = {
  'compact sequence': (n) => `${'- '.repeat(n)}1`,
  'flow sequence': (n) => `${'['.repeat(n)}1${']'.repeat(n)}`,
  'flow mapping': (n) => `${'{a: '.repeat(n)}1${'}'.repeat(n)}`,
  'pairs in flow sequences': (n) => `${'[a: '.repeat(Math.ceil(n / 2))}1${']'.repeat(Math.ceil(n / 2))}`,
  'block mapping': (n) =>
    `${Array.from({ length: n }, (_, i) => `${i === 0 ? '' : `\n${'  '.repeat(i + 4)}`}k${i % 10}:`).join('')} 1`,
};

/**
 * The deepest each shape gets within a spec's 256 KiB: a block mapping's indentation grows with
 * its depth, a flow mapping takes 5 bytes a level; the others go to 100,000.
 */
export function deepestFitting(shape: string, n: number): number {
  return Math.min(
    n,
    ({ 'flow mapping': 50_000, 'block mapping': 400 } as Record<string, number>)[shape] ?? n,
  );
}

/** The spec with `shape` nested `n` levels (at most as deep as fits) under `steps[0].args.a`. */
export function deepSpecText(shape: string, n: number): string {
  return `${DEEP_SPEC_HEAD}${DEEP_YAML_SHAPES[shape]!(deepestFitting(shape, n))}\n`;
}
