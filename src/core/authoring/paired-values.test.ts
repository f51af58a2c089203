/**
 * A value said in two words the catalog does not list (grammar/paired-values.ts): "from the tip
 * line" is the source `tip_line`, never `tip`, a value no event has, which would make "unless it
 * came from the tip line" leave out nothing. A value the catalog shows stays one word.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const desk: DraftCatalog = {
  tools: [
    tool({
      name: 'hold_claim',
      destructive: true,
      description: 'Puts a claim on hold.',
      args: {
        type: 'object',
        required: ['claim_id'],
        properties: { claim_id: { type: 'string', pattern: '^CLM-[0-9]+$' } },
      },
    }),
  ],
  events: [
    {
      type: 'fraud.alert',
      payload: ['claim_id', 'score', 'source'],
      values: { claim_id: ['CLM-1', 'CLM-2'], source: ['model', 'partner'] },
      subjects: ['FA-1'],
    },
  ],
};
const draft = (r: string) => draftSpec(compileRequest(r, desk), desk);

test('a channel said in two words the catalog does not list is one value, under Assumed', () => {
  for (const [request, when] of [
    ['fraud alerts from the tip line: hold the claim', 'payload.source == "tip_line"'],
    ['on a fraud alert, hold the claim unless it came in via the tip line', 'payload.source != "tip_line"'],
    ['on a fraud alert, hold the claim unless it came from the tip line.', 'payload.source != "tip_line"'],
  ]) {
    const d = draft(request!);
    assert.equal(d.spec?.triggers[0]?.when, when, `${request}: ${JSON.stringify(d.spec ?? d.partial)}`);
    assert.ok(
      d.readBack?.assumed?.some((a) =>
        a.startsWith('"tip line" is read as fraud.alert\'s source "tip_line"'),
      ),
      JSON.stringify(d.readBack?.assumed),
    );
  }
  // A value the catalog shows is read alone.
  const d = draft('on a fraud alert, hold the claim unless it came from partner');
  assert.equal(d.spec?.triggers[0]?.when, 'payload.source != "partner"');
});
