/**
 * Parsing spec text: YAML or JSON (JSON is YAML 1.2) into a validated `WorkflowSpec`.
 *
 * Owns the bridge from source text to problems with line and column: YAML syntax errors, duplicate
 * keys (`1` and `"1"` are one key, as they are once read), unresolved tags and collection keys are
 * problems like any other, and validation problems are located at the offending node. The text is
 * measured against `SPEC_LIMITS` before it is parsed (its bytes, and its line breaks and commas as a
 * bound on its keys), its nesting before anything recursive reads it (yaml-depth.ts) and its value
 * before it is validated (alias expansion included), so no input makes parsing or validation slow
 * or deep. Never guesses past a syntax
 * error, never reads files.
 */

import {
  Composer,
  type CST,
  type Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  Parser,
  visit,
  YAMLParseError,
} from 'yaml';
import {
  type InputLimits,
  limitError,
  measureSeparators,
  measureText,
  measureValue,
  SPEC_LIMITS,
} from './input-limits.ts';
import { type PromotionSpec, readGates } from './lifecycle-spec.ts';
import { type Locate, SpecChecker } from './spec-checker.ts';
import { formatFieldPath } from './spec-problem.ts';
import { buildSpec } from './validate-spec.ts';
import type { SpecOptions, WorkflowSpec } from './workflow-spec.ts';
import { type YamlDepthBreach, yamlNodeBreach, yamlTokenBreach } from './yaml-depth.ts';

type Doc = Document.Parsed;

export function parseSpec(text: string, file: string, options: SpecOptions = {}): WorkflowSpec {
  return parseYamlWith(text, file, (c, value) => buildSpec(c, value, options));
}

/**
 * The YAML bridge any Keel document uses (specs, policies): measures `text` against `limits`,
 * parses it, reports YAML problems with line and column, then hands the plain value to `build`,
 * whose problems are located at the offending node. Throws `payload_too_large` naming the limit
 * crossed, or `spec_invalid` carrying every problem; `build` returns undefined to fail.
 */
export function parseYamlWith<T>(
  text: string,
  file: string,
  build: (c: SpecChecker, value: unknown) => T | undefined,
  limits: InputLimits = SPEC_LIMITS,
): T {
  const big = measureText(text, limits) ?? measureSeparators(text, limits);
  if (big) throw limitError(big, file);
  const lc = new LineCounter();
  const at = (offset: number) => {
    const { line, col } = lc.linePos(offset);
    return { line, column: col };
  };
  const tooDeep = (b: YamlDepthBreach) =>
    limitError(
      { limit: 'maxDepth', max: limits.maxDepth, field: formatFieldPath(b.path), path: b.path },
      file,
      at(b.offset),
    );
  // The lexer and parser are iterative; composing recurses once per level, so the depth limit is
  // checked on the parser's tokens first, whatever the shape (yaml-depth.ts).
  const tokens = [...new Parser(lc.addNewLine).parse(text)];
  const shallow = yamlTokenBreach(tokens, limits.maxDepth);
  if (shallow) throw tooDeep(shallow);
  const doc = composeDocument(tokens, text.length);
  // Aliases may nest deeper than the text does: checked before anything visits or converts.
  const expanded = yamlNodeBreach(doc, limits.maxDepth);
  if (expanded) throw tooDeep(expanded);
  const locate = locator(doc, text, lc);
  const c = new SpecChecker(file, locate);
  if (!reportYamlProblems(c, doc, at)) {
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      c.report([], `cannot read the document: ${(e as Error).message}`);
      throw c.error();
    }
    const breach = measureValue(value, limits);
    if (breach) throw limitError(breach, file, locate(breach.path, 'value') ?? {});
    const built = build(c, value);
    if (built !== undefined && c.found === 0) return built;
  }
  throw c.error();
}

/**
 * The first document of the tokens, as `parseDocument` composes it (a second one is an error).
 * Duplicate keys are found by reportYamlProblems in one pass (the parser's own check is quadratic).
 */
function composeDocument(tokens: readonly CST.Token[], length: number): Doc {
  const composer = new Composer({ prettyErrors: false, resolveKnownTags: false, uniqueKeys: false });
  let doc: Doc | undefined;
  for (const d of composer.compose(tokens, true, length)) {
    if (!doc) doc = d;
    else {
      doc.errors.push(
        new YAMLParseError(
          [d.range[0], d.range[1]],
          'MULTIPLE_DOCS',
          'Source contains multiple documents; please use YAML.parseAllDocuments()',
        ),
      );
      break;
    }
  }
  return doc!;
}

/** Reports YAML-level problems; true when the document cannot be trusted for validation. */
function reportYamlProblems(
  c: SpecChecker,
  doc: Doc,
  at: (offset: number) => { line: number; column: number },
): boolean {
  let fatal = false;
  for (const e of [...doc.errors, ...doc.warnings]) {
    if (doc.errors.includes(e)) fatal = true;
    c.add(() => ({ ...at(e.pos[0]), field: fieldAt(doc, e.pos[0]), message: `YAML: ${e.message}` }));
  }
  visit(doc, {
    Map(_, map) {
      // Keys as the value will hold them: `1` and "1", `~` and "", `true` and "true" are one key.
      const seen = new Set<string>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        const key = pair.key.value === null ? '' : String(pair.key.value);
        if (!seen.has(key)) {
          seen.add(key);
          continue;
        }
        const offset = pair.key.range?.[0] ?? 0;
        c.add(() => ({
          ...at(offset),
          field: fieldAt(doc, offset),
          message: 'duplicate key; each field may appear only once',
        }));
      }
    },
    Pair(_, pair) {
      if (isScalar(pair.key) || pair.key === null) return;
      const offset = (pair.key as Node).range?.[0] ?? 0;
      c.add(() => ({
        ...at(offset),
        field: fieldAt(doc, offset),
        message: 'keys must be plain strings, not lists or mappings',
      }));
      fatal = true;
    },
  });
  return fatal;
}

function child(node: unknown, seg: string | number, doc: Doc): { node: unknown; key?: Node } | undefined {
  const n = isAlias(node) ? node.resolve(doc) : node;
  if (isMap(n)) {
    const pair = n.items.findLast((p) => isScalar(p.key) && String(p.key.value) === String(seg));
    return pair ? { node: pair.value, key: pair.key as Node } : undefined;
  }
  if (isSeq(n) && typeof seg === 'number') return { node: n.items[seg] };
  return undefined;
}

/** Finds the node at a field path and turns its offset (plus a char index inside a scalar) into line:col. */
function locator(doc: Doc, text: string, lc: LineCounter): Locate {
  return (path, at, charIndex) => {
    let node: unknown = doc.contents;
    let key: Node | undefined;
    for (const seg of path) {
      const next = child(node, seg, doc);
      if (!next) return undefined;
      node = next.node;
      key = next.key;
    }
    const target = at === 'key' && key ? key : (node as Node | null);
    const range = target?.range;
    if (!range) return undefined;
    const offset = range[0] + (charIndex === undefined ? 0 : scalarShift(target, text, charIndex));
    const { line, col } = lc.linePos(offset);
    return { line, column: col };
  };
}

/** Offset of character `i` of a scalar's value from the node start, when the source is one line. */
function scalarShift(node: unknown, text: string, i: number): number {
  if (!isScalar(node) || typeof node.value !== 'string' || !node.range) return 0;
  const src = text.slice(node.range[0], node.range[1]);
  if (src.includes('\n')) return 0;
  if (node.type === 'PLAIN') return src === node.value ? i : 0;
  if (node.type !== 'QUOTE_DOUBLE' && node.type !== 'QUOTE_SINGLE') return 0;
  // Walk the quoted source, counting the UTF-16 units each character or escape decodes to.
  let units = 0;
  let k = 1;
  while (k < src.length - 1 && units < i) {
    const width = escapeWidth(src, k, node.type === 'QUOTE_DOUBLE');
    units += width.units;
    k += width.chars;
  }
  return k;
}

function escapeWidth(src: string, k: number, double: boolean): { chars: number; units: number } {
  if (!double) return { chars: src.startsWith("''", k) ? 2 : 1, units: 1 };
  if (src[k] !== '\\') return { chars: 1, units: 1 };
  const e = src[k + 1];
  if (e === 'x') return { chars: 4, units: 1 };
  if (e === 'u') return { chars: 6, units: 1 };
  if (e === 'U') return { chars: 10, units: Number.parseInt(src.slice(k + 2, k + 10), 16) > 0xffff ? 2 : 1 };
  return { chars: 2, units: 1 };
}

/** The field path of the deepest node containing `offset`, for YAML errors. */
function fieldAt(doc: Doc, offset: number): string {
  const path: (string | number)[] = [];
  let node: unknown = doc.contents;
  for (;;) {
    const next = innerAt(node, offset);
    if (!next) break;
    path.push(next.seg);
    if (next.isKey) break;
    node = next.node;
  }
  return formatFieldPath(path);
}

function contains(n: unknown, offset: number): boolean {
  const r = (n as Node | null)?.range;
  return !!r && r[0] <= offset && offset < Math.max(r[2], r[0] + 1);
}

function innerAt(
  node: unknown,
  offset: number,
): { seg: string | number; node: unknown; isKey: boolean } | undefined {
  if (isMap(node)) {
    for (const p of node.items) {
      if (!isPair(p) || !isScalar(p.key)) continue;
      const seg = String(p.key.value);
      if (contains(p.key, offset)) return { seg, node: p.key, isKey: true };
      if (contains(p.value, offset)) return { seg, node: p.value, isKey: false };
      // Between key and value (a tag or anchor before the value): the pair's field, no deeper.
      const end = (p.value as Node | null)?.range?.[0];
      if (end !== undefined && (p.key.range?.[0] ?? end) <= offset && offset < end)
        return { seg, node: p, isKey: true };
    }
  }
  if (isSeq(node)) {
    const i = node.items.findIndex((item) => contains(item, offset));
    if (i >= 0) return { seg: i, node: node.items[i], isKey: false };
  }
  return undefined;
}

/**
 * A gates file (`keel --gates`, YAML or JSON): promotion thresholds per target, each partial
 * (`live: { minComparisons: 50 }`); problems name file, line and field (spec_invalid).
 */
export function parseGates(text: string, file: string): PromotionSpec {
  return parseYamlWith(text, file, (c, value) => readGates(c, value, []));
}
