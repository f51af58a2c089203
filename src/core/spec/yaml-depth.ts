/**
 * The depth limit of a YAML text, enforced before anything recursive reads it. The yaml library's
 * lexer and parser are iterative, but composing documents, visiting them and turning them into
 * values recurse once per level: a compact sequence (`- - - … 1`), a flow one (`[[[1]]]`), nested
 * mappings or aliases of aliases thousands deep would otherwise reach those recursions first, and
 * where the stack runs out (or whether it does) depends on the caller's stack and the JIT.
 *
 * Owns two iterative measures: `yamlTokenBreach` over the parser's tokens (collections only, so it
 * never counts more levels than the value has), run before composing; and `yamlNodeBreach` over the
 * composed nodes, aliases expanded (each node's height computed once, so an alias bomb costs no
 * more than its nodes), run before visiting or converting. Each stops at the first level past
 * `maxDepth` and says where it is: the field path and the offset in the text. Never recurses,
 * never changes what it measures.
 */
import { type CST, type Document, isAlias, isMap, isPair, isScalar, isSeq, type Node } from 'yaml';
import type { PathSegment } from './read-path.ts';

/** The first level past the limit: its field path and where it starts in the text. */
export interface YamlDepthBreach {
  readonly path: readonly PathSegment[];
  readonly offset: number;
}

interface TokenFrame {
  readonly token: CST.Token;
  /** Levels of nesting above this token's value (the document's value is at 0). */
  readonly depth: number;
  readonly path: readonly PathSegment[];
}

/**
 * The first collection in the parser's tokens nested deeper than `maxDepth` (a collection at the
 * top is depth 1), or undefined. A pair written inside a flow sequence (`[a: 1]`) is a mapping of
 * its own and counts a level; a collection used as a key counts as one too.
 */
export function yamlTokenBreach(tokens: readonly CST.Token[], maxDepth: number): YamlDepthBreach | undefined {
  const stack: TokenFrame[] = [];
  for (let i = tokens.length - 1; i >= 0; i--) {
    const t = tokens[i]!;
    if (t.type === 'document' && t.value) stack.push({ token: t.value, depth: 0, path: [] });
  }
  for (let top = stack.pop(); top; top = stack.pop()) {
    const { token, depth, path } = top;
    if (token.type !== 'block-map' && token.type !== 'block-seq' && token.type !== 'flow-collection')
      continue;
    const level = depth + 1;
    if (level > maxDepth) return { path, offset: token.offset };
    const seq =
      token.type === 'block-seq' || (token.type === 'flow-collection' && token.start.source === '[');
    for (let k = token.items.length - 1; k >= 0; k--) {
      const item = token.items[k]! as CST.CollectionItem;
      // `[a: 1]`: the item is a one-pair mapping inside the sequence.
      const pair = item.key !== undefined || (item.sep?.some((s) => s.type === 'map-value-ind') ?? false);
      const inner = seq && pair ? level + 1 : level;
      if (seq && pair && inner > maxDepth)
        return { path: [...path, k], offset: item.key?.offset ?? token.offset };
      const at: PathSegment[] = seq ? [...path, k] : [...path];
      const name = keyText(item.key);
      if (item.value) stack.push({ token: item.value, depth: inner, path: pair ? [...at, name] : at });
      if (item.key) stack.push({ token: item.key, depth: inner, path: [...at, name] });
    }
  }
  return undefined;
}

/** A key as a field path shows it: a scalar's text (quotes off), else `?`. */
function keyText(key: CST.Token | null | undefined): string {
  if (!key) return '';
  if (key.type === 'scalar') return key.source;
  if (key.type === 'single-quoted-scalar' || key.type === 'double-quoted-scalar')
    return key.source.slice(1, -1);
  return '?';
}

/**
 * The first node of a composed document nested deeper than `maxDepth` once its aliases are
 * expanded (an alias is as deep as what it names), or undefined. The offset is of the alias the
 * path went through first, if any, else of the node itself. A node that contains itself (an alias
 * inside its own anchor) is not deep but invalid: it is left for validation to name.
 */
export function yamlNodeBreach(doc: Document.Parsed, maxDepth: number): YamlDepthBreach | undefined {
  const root = doc.contents;
  if (!root) return undefined;
  const heights = new Map<unknown, number>();
  const resolve = (n: unknown): unknown => (isAlias(n) ? n.resolve(doc) : n);
  const children = (n: unknown): unknown[] => {
    if (isMap(n)) return n.items.flatMap((p) => [p.key, p.value]);
    // A pair inside a sequence (`[a: 1]`) is a mapping of one pair.
    if (isSeq(n)) return n.items;
    if (isPair(n)) return [n.key, n.value];
    return [];
  };
  const isLevel = (n: unknown) => isMap(n) || isSeq(n) || isPair(n);
  // Post-order without recursion: a node's height once all its children's are known.
  const stack: { node: unknown; open: boolean }[] = [{ node: root, open: false }];
  const inProgress = new Set<unknown>();
  for (let top = stack.pop(); top; top = stack.pop()) {
    const node = resolve(top.node);
    if (heights.has(node)) continue;
    if (!isLevel(node)) {
      heights.set(node, 0);
      continue;
    }
    if (!top.open) {
      if (inProgress.has(node)) continue; // a cycle: validation names it
      inProgress.add(node);
      stack.push({ node, open: true });
      for (const c of children(node)) if (!heights.has(resolve(c))) stack.push({ node: c, open: false });
      continue;
    }
    let h = 0;
    for (const c of children(node)) h = Math.max(h, heights.get(resolve(c)) ?? 0);
    heights.set(node, h + 1);
    inProgress.delete(node);
  }
  if ((heights.get(resolve(root)) ?? 0) <= maxDepth) return undefined;
  // Down the deepest branch to the first level past the limit, naming the path as it goes.
  const path: PathSegment[] = [];
  let node: unknown = root;
  let offset: number | undefined;
  for (let level = 1; ; level++) {
    if (isAlias(node) && offset === undefined) offset = node.range?.[0];
    node = resolve(node);
    if (level > maxDepth) return { path, offset: offset ?? (node as Node).range?.[0] ?? 0 };
    let best: { child: unknown; seg?: PathSegment } | undefined;
    let bestH = -1;
    if (isMap(node) || isPair(node)) {
      const pairs = isMap(node) ? node.items : [node];
      for (const p of pairs) {
        const h = heights.get(resolve(p.value)) ?? 0;
        if (h > bestH) {
          bestH = h;
          best = { child: p.value, seg: isScalar(p.key) ? String(p.key.value) : '?' };
        }
      }
    } else if (isSeq(node)) {
      node.items.forEach((c, i) => {
        const h = heights.get(resolve(c)) ?? 0;
        if (h > bestH) {
          bestH = h;
          best = { child: c, seg: i };
        }
      });
    }
    if (!best) return { path, offset: offset ?? (node as Node).range?.[0] ?? 0 };
    if (best.seg !== undefined) path.push(best.seg);
    node = best.child;
  }
}
