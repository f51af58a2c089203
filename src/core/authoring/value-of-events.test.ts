/**
 * A value an argument takes, said of the events themselves (grammar/value-of-events.ts): "deny
 * fraud claims" with no field saying a claim is fraud had denied every claim, as fraud. Asked for a
 * tool that destroys or moves money; "deny it as fraud" and "grant read access" (the thing given)
 * keep the value. Over a claims desk of its own.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const claim = { type: 'string', pattern: '^CL-[0-9]+$' };
const desk: DraftCatalog = {
  tools: [
    tool({
      name: 'deny_claim',
      destructive: true,
      description: 'Denies a claim.',
      args: {
        type: 'object',
        required: ['claim_id', 'reason'],
        properties: {
          claim_id: claim,
          reason: { type: 'string', enum: ['fraud', 'duplicate', 'not_covered'] },
        },
      },
    }),
  ],
  events: [
    {
      type: 'claim.filed',
      payload: ['claim_type'],
      values: { claim_type: ['auto', 'home'] },
      subjects: ['CL-1'],
    },
  ],
};
const draft = (r: string) => draftSpec(compileRequest(r, desk), desk);

test('"deny fraud claims": which claims is asked, never every claim denied as fraud', () => {
  for (const r of ['claim filed: deny fraud claims', 'when a claim is filed, deny duplicate claims']) {
    const d = draft(r);
    assert.equal(d.publishable, false, `${r}: ${JSON.stringify(d.spec)}`);
    assert.ok(
      d.questions.some((q) =>
        /are only some claim\.filed events "(?:fraud|duplicate)" ones\?/.test(q.question),
      ),
      `${r}: ${JSON.stringify(d.questions)}`,
    );
  }
  const d = draft('claim filed: deny it as fraud');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(
    d.spec!.steps.map((s) => ('tool' in s ? s.args.reason : '')),
    ['fraud'],
  );
});
