import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FLOW_SPEC } from '../../test/helpers/flow-spec.ts';
import { parseSpec } from '../core/spec/index.ts';
import { specAsDefinition } from './definition.ts';

test("a spec's branches show in its OpenWOP graph as edges carrying their conditions", () => {
  const def = specAsDefinition(parseSpec(FLOW_SPEC, 'desk.yaml')) as {
    nodes: { id: string }[];
    edges: { id: string; sourceNodeId: string; targetNodeId: string; condition?: Record<string, unknown> }[];
  };
  assert.deepEqual(
    def.nodes.map((n) => n.id),
    ['lookup', 'tag_review', 'ask_lead', 'gold_note', 'gold_refund', 'plain_refund', 'reply'],
  );
  const e = (from: string, to: string) =>
    def.edges.filter((x) => x.sourceNodeId === from && x.targetNodeId === to).map((x) => x.condition ?? null);
  assert.deepEqual(e('lookup', 'tag_review'), [{ if: 'payload.refund_amount > 50' }]);
  assert.deepEqual(e('tag_review', 'gold_note'), [
    { choose: 'route', branch: 1, when: 'steps.lookup.output.tier == "gold"' },
  ]);
  // The tag skipped: straight from lookup into the branch.
  assert.deepEqual(e('lookup', 'plain_refund'), [
    { skipped: 'tag_review', unless: 'payload.refund_amount > 50', choose: 'route', branch: 'else' },
  ]);
  assert.deepEqual(e('gold_note', 'gold_refund'), [null]);
  assert.deepEqual(e('gold_refund', 'reply'), [null]);
  assert.equal(new Set(def.edges.map((x) => x.id)).size, def.edges.length, 'edge ids are unique');
});
