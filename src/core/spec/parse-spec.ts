/**
 * Parsing spec text: YAML or JSON (JSON is YAML 1.2) into a validated `WorkflowSpec`.
 *
 * Owns the bridge from source text to problems with line and column: YAML syntax errors, duplicate
 * keys, unresolved tags and collection keys are problems like any other, and validation problems
 * are located at the offending node. Never guesses past a syntax error, never reads files.
 */
import {
  type Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  visit,
} from 'yaml';
import { type Locate, SpecChecker } from './spec-checker.ts';
import { formatFieldPath, specInvalidError } from './spec-problem.ts';
import { buildSpec } from './validate-spec.ts';
import type { SpecOptions, WorkflowSpec } from './workflow-spec.ts';

type Doc = Document.Parsed;

export function parseSpec(text: string, file: string, options: SpecOptions = {}): WorkflowSpec {
  const lc = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter: lc,
    prettyErrors: false,
    resolveKnownTags: false,
    uniqueKeys: true,
  });
  const c = new SpecChecker(file, locator(doc, text, lc));
  const at = (offset: number) => {
    const { line, col } = lc.linePos(offset);
    return { line, column: col };
  };
  if (!reportYamlProblems(c, doc, at)) {
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      c.problems.push({ file, field: '', message: `cannot read the document: ${(e as Error).message}` });
      throw specInvalidError(c.sorted());
    }
    const spec = buildSpec(c, value, options);
    if (spec && c.problems.length === 0) return spec;
  }
  throw specInvalidError(c.sorted());
}

/** Reports YAML-level problems; true when the document cannot be trusted for validation. */
function reportYamlProblems(
  c: SpecChecker,
  doc: Doc,
  at: (offset: number) => { line: number; column: number },
): boolean {
  let fatal = false;
  for (const e of [...doc.errors, ...doc.warnings]) {
    const dup = e.code === 'DUPLICATE_KEY';
    if (!dup && doc.errors.includes(e)) fatal = true;
    const message = dup ? 'duplicate key; each field may appear only once' : `YAML: ${e.message}`;
    c.problems.push({ file: c.file, ...at(e.pos[0]), field: fieldAt(doc, e.pos[0]), message });
  }
  visit(doc, {
    Pair(_, pair) {
      if (isScalar(pair.key) || pair.key === null) return;
      const offset = (pair.key as Node).range?.[0] ?? 0;
      c.problems.push({
        file: c.file,
        ...at(offset),
        field: fieldAt(doc, offset),
        message: 'keys must be plain strings, not lists or mappings',
      });
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

/** Offset of character `i` of a scalar's value from the node start, when the source shows it verbatim. */
function scalarShift(node: unknown, text: string, i: number): number {
  if (!isScalar(node) || typeof node.value !== 'string' || !node.range) return 0;
  const src = text.slice(node.range[0], node.range[1]);
  if (node.type === 'PLAIN' && src === node.value) return i;
  const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE';
  if (quoted && src.slice(1, -1) === node.value) return i + 1;
  return 0;
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
    }
  }
  if (isSeq(node)) {
    const i = node.items.findIndex((item) => contains(item, offset));
    if (i >= 0) return { seg: i, node: node.items[i], isKey: false };
  }
  return undefined;
}
