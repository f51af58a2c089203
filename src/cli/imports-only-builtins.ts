/**
 * Whether a JavaScript module's text can import nothing but Node's built-in modules (`node:fs`,
 * `path`, ...): then it cannot reach `keel` or a `.ts` file, and a tool pack so written needs no
 * pack hooks (tool-pack.ts), whose loader thread costs ~0.1 s to start. A read of the text, not a
 * parse: every `import` word and every `from '...'` must be one of the forms below, or the answer
 * is no. A word in a comment or a string can only make it answer no, which costs the hooks, never
 * a failed import.
 *
 * Allowed: `import ... from 'builtin'`, `import 'builtin'`, `export ... from 'builtin'`,
 * `import('builtin')` with a literal, and `import.meta.url` / `.dirname` / `.filename`. Anything
 * else (`import(name)`, `import.meta.resolve`, a relative or package specifier) answers no.
 */
import { isBuiltin } from 'node:module';

/** `import` followed by a static clause (default, namespace or named bindings) and `from 'x'`. */
const STATIC_IMPORT =
  /^import\s*(?:[\w$]+\s*(?:,\s*)?)?(?:\*\s*as\s+[\w$]+\s*|\{[^}'"]*\}\s*)?from\s*(['"])([^'"]+)\1/;
/** `import 'x'` (for its effects) or `import('x')` with a literal. */
const BARE_OR_DYNAMIC_IMPORT = /^import\s*(?:\(\s*)?(['"])([^'"]+)\1/;
const IMPORT_META = /^import\s*\.\s*meta\s*\.\s*(?:url|dirname|filename)\b/;
const FROM = /\bfrom\s*(['"])([^'"]*)\1/g;

export function importsOnlyBuiltins(source: string): boolean {
  for (const m of source.matchAll(/(?<![\w$.])import\b/g)) {
    const rest = source.slice(m.index);
    if (IMPORT_META.test(rest)) continue;
    const specifier = (STATIC_IMPORT.exec(rest) ?? BARE_OR_DYNAMIC_IMPORT.exec(rest))?.[2];
    if (specifier === undefined || !isBuiltin(specifier)) return false;
  }
  // `export ... from 'x'` (and any other `from '...'`) names a module too.
  for (const m of source.matchAll(FROM)) if (!isBuiltin(m[2]!)) return false;
  return true;
}
