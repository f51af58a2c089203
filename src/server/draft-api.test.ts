/**
 * `POST /api/drafts` through the real server app: the first call publishes nothing; only a second
 * call naming the draft's own specHash publishes it, as DRAFT, in the caller's tenant; a wrong hash
 * or a draft with questions is refused and changes nothing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Helpdesk, supportDeskTools } from '../../examples/support-desk/index.ts';
import { inProcessServer } from '../../test/helpers/in-process-server.ts';
import { parsePolicy } from '../core/policy/index.ts';

const desk = new Helpdesk(':memory:');
/** acme's policy: refunds over $20 wait for a person; globex has none. */
const POLICY = `default: allow
rules:
  - id: big-refunds
    match: { tool: issue_refund }
    when: args.amount_usd > 20
    outcome: require_approval
`;
const t = inProcessServer({
  tools: supportDeskTools(desk),
  policies: { acme: parsePolicy(POLICY, 'policy.yaml') },
});
const EVENTS = [{ type: 'refund.requested', payload: ['refund_amount', 'currency', 'reason'] }];
const REQUEST = 'When a refund is requested in USD, reply "Thanks!" and then refund anyone under $50.';
const draft = (body: Record<string, unknown>, key?: string | null) =>
  t.api('POST', '/api/drafts', { body, ...(key === undefined ? {} : { key }) });
/** The versions the key's tenant has, as GET /api/workflows lists them. */
const count = async (key?: string) =>
  ((await t.api('GET', '/api/workflows', key ? { key } : {})).body.versions as unknown[]).length;

describe('POST /api/drafts', () => {
  test('the first call answers the draft and publishes nothing', async () => {
    const r = await draft({ request: REQUEST, events: EVENTS });
    assert.equal(r.status, 200, r.text);
    assert.match(String(r.body.specHash), /^sha256:[0-9a-f]{64}$/);
    assert.equal((r.body.spec as { status: string }).status, 'DRAFT');
    assert.deepEqual(r.body.questions, []);
    assert.equal(r.body.published, null);
    assert.match(String((r.body.readBack as { summary: string }).summary), /^When a refund is requested/);
    assert.equal(await count(), 0);
  });

  test("the seed's sentence drafts over HTTP, its assumed event in readBack.assumed and the text", async () => {
    const r = await draft({ request: 'refund anyone under $50', events: EVENTS });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.questions, []);
    assert.equal(r.body.publishable, true);
    const rb = r.body.readBack as { assumed: string[]; text: string };
    assert.match(rb.assumed[0] ?? '', /^The workflow starts on refund\.requested/);
    assert.match(rb.text, /Assumed:\n {2}- The workflow starts on refund\.requested/);
    assert.match(rb.text, /Spends at most \$50 a run/);
    assert.equal(await count(), 0);
  });

  test('sample events as a system sends them count like event shapes, merged by type', async () => {
    const bySamples = await draft({
      request: REQUEST,
      samples: [
        { type: 'refund.requested', payload: { refund_amount: 20, currency: 'USD' } },
        { type: 'refund.requested', payload: { reason: 'late' } },
        'not an event',
      ],
    });
    assert.equal(bySamples.status, 200, bySamples.text);
    assert.deepEqual(bySamples.body.questions, []);
    assert.equal(bySamples.body.specHash, (await draft({ request: REQUEST, events: EVENTS })).body.specHash);
    assert.match(JSON.stringify(bySamples.body.spec), /event\.payload\.refund_amount/);
    // Without either, the amount is read from a field named after the tool's argument.
    const none = await draft({ request: REQUEST });
    assert.match(JSON.stringify(none.body.spec), /event\.payload\.amount_usd/);
    assert.equal(await count(), 0);
  });

  test('a confirmation naming another hash is 409 draft_mismatch and publishes nothing', async () => {
    const r = await draft({ request: REQUEST, events: EVENTS, confirm: `sha256:${'0'.repeat(64)}` });
    assert.deepEqual([r.status, r.body.error], [409, 'draft_mismatch'], r.text);
    // The same hash for another request is refused too: a confirmation is of what was reviewed.
    const first = await draft({ request: REQUEST, events: EVENTS });
    const other = await draft({
      request: `${REQUEST} At most 5 steps.`,
      events: EVENTS,
      confirm: first.body.specHash,
    });
    assert.deepEqual([other.status, other.body.error], [409, 'draft_mismatch'], other.text);
    assert.equal(await count(), 0);
  });

  test('a draft with questions is 422 draft_has_questions, whatever it confirms', async () => {
    const r = await draft({
      request: 'When a refund is requested, refund it', // no spend cap: a question
      events: EVENTS,
      confirm: `sha256:${'1'.repeat(64)}`,
    });
    assert.deepEqual([r.status, r.body.error], [422, 'draft_has_questions'], r.text);
    assert.equal(await count(), 0);
  });

  test('confirming the draft own hash publishes it as DRAFT, in the caller tenant only', async () => {
    const first = await draft({ request: REQUEST, events: EVENTS, id: 'desk-refunds' });
    const r = await draft({
      request: REQUEST,
      events: EVENTS,
      id: 'desk-refunds',
      confirm: first.body.specHash,
    });
    assert.equal(r.status, 201, r.text);
    const published = r.body.published as {
      status: string;
      workflowId: string;
      tenant: string;
      specHash: string;
    };
    assert.deepEqual(
      [published.status, published.workflowId, published.tenant, published.specHash],
      ['DRAFT', 'desk-refunds', 'acme', first.body.specHash],
    );
    assert.equal(await count(), 1);
    assert.equal(await count(t.globex), 0);
  });

  test('without a key it is 401; bad input is 400 naming the field', async () => {
    assert.equal((await draft({ request: REQUEST }, null)).status, 401);
    const long = await draft({ request: 'x'.repeat(5000) });
    assert.equal(long.status, 400, long.text);
    assert.match(long.text, /request/);
    const extra = await draft({ request: REQUEST, status: 'LIVE' });
    assert.equal(extra.status, 400, extra.text);
    assert.match(extra.text, /status/);
    assert.equal(await count(), 1);
  });
});

describe('GET /api/workflows/{id}/explain', () => {
  test('reads the tenant version back with its risks; another tenant gets 404', async () => {
    const r = await t.api('GET', '/api/workflows/desk-refunds/explain?version=1');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.status, 'DRAFT');
    assert.ok((r.body.risks as string[]).some((l) => /refund \(issue_refund\) is destructive/.test(l)));
    assert.match(String(r.body.summary), /^When a refund is requested, if its currency is "USD"/);
    const other = await t.api('GET', '/api/workflows/desk-refunds/explain', { key: t.globex });
    assert.equal(other.status, 404, other.text);
  });

  test("reads the tenant's policy against each step; a draft's read-back reads it too", async () => {
    const r = await t.api('GET', '/api/workflows/desk-refunds/explain?version=1');
    const policy = r.body.policy as string[];
    assert.match(policy[0]!, /\(1 rule\): a call no rule matches is allowed \(default allow\)/);
    assert.match(
      policy[2]!,
      /^2\. refund \(issue_refund\): allowed \(the policy's default\); if args\.amount_usd > 20, waits for a person's approval \(rule big-refunds\)\.$/,
    );
    assert.ok((r.body.risks as string[]).some((l) => /if args\.amount_usd > 20, it waits/.test(l)));
    const d = await draft({ request: REQUEST, events: EVENTS });
    assert.match(JSON.stringify(d.body.readBack), /rule big-refunds/);
    // globex has no policy: its draft reads no policy section.
    const g = await draft({ request: REQUEST, events: EVENTS }, t.globex);
    assert.deepEqual((g.body.readBack as { policy: string[] }).policy, []);
  });
});
