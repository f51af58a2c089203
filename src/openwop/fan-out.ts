/**
 * A fan-out/fan-in in an OpenWOP definition, read as Keel's `parallel` construct
 * (docs/flow.md "Parallel branches"): one node whose edges go to two or more nodes, each the head
 * of a chain (every node in it has one edge in and one out) whose last node has its one edge to the
 * same join node, and that join node is reached by exactly those edges, each `triggerRule:
 * all_success`. Such a shape runs as `parallel: {join: all}` with one branch per chain (named by
 * its first node), the join node the step after. Any other shape is not read as branches and
 * compiles to a topological chain as before.
 */

/** The edges of a definition (definition.ts `OpenWopEdge`), as much as a fan-out reads of them. */
interface Edges {
  readonly edges: readonly {
    readonly sourceNodeId: string;
    readonly targetNodeId: string;
    readonly triggerRule?: string;
  }[];
}

/** The branches fanning out of `from` and the node they join on, or undefined for another shape. */
export interface FanOut {
  /** Branch name (its first node's id) -> the node ids of its chain, in order. */
  readonly branches: Record<string, string[]>;
  readonly join: string;
}

export function fanOutAt(def: Edges, from: string): FanOut | undefined {
  const out = (id: string) => def.edges.filter((e) => e.sourceNodeId === id);
  const into = (id: string) => def.edges.filter((e) => e.targetNodeId === id);
  const heads = out(from).map((e) => e.targetNodeId);
  if (heads.length < 2 || new Set(heads).size !== heads.length) return undefined;
  const branches: Record<string, string[]> = {};
  const ends: string[] = [];
  let join: string | undefined;
  for (const head of heads) {
    const chain: string[] = [];
    let at = head;
    for (;;) {
      if (into(at).length !== 1 || chain.includes(at)) return undefined;
      chain.push(at);
      const next = out(at);
      if (next.length !== 1) return undefined;
      const to = next[0]!.targetNodeId;
      if (into(to).length > 1) {
        if (join !== undefined && join !== to) return undefined;
        join = to;
        ends.push(at);
        break;
      }
      at = to;
    }
    branches[head] = chain;
  }
  if (join === undefined) return undefined;
  const joinEdges = into(join);
  if (joinEdges.length !== heads.length) return undefined;
  if (!joinEdges.every((e) => ends.includes(e.sourceNodeId) && e.triggerRule === 'all_success'))
    return undefined;
  return { branches, join };
}
