/**
 * The engine on PostgreSQL: the support-desk refund desk runs end to end through createKeel with
 * a PostgresStore, every ledger verifies, and a second store on the same schema (another process,
 * in effect) sees the runs and resolves the pending approval exactly once.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Helpdesk } from '../../../examples/support-desk/helpdesk.ts';
import { supportDeskTools } from '../../../examples/support-desk/tools.ts';
import { createKeel } from '../../app/index.ts';
import { isKeelError } from '../../core/errors.ts';
import { deploy, fakeSources } from '../../testing/index.ts';
import { dropSchema, openScratchStore, scratchSchemaName, testDatabaseUrl } from './scratch-schema.ts';

const url = testDatabaseUrl();
const schema = scratchSchemaName('keel_test_engine');
after(() => dropSchema(url, schema));

const EXAMPLE = join(import.meta.dirname, '..', '..', '..', 'examples', 'support-desk');
const example = (file: string) => readFileSync(join(EXAMPLE, file), 'utf8');
const event = (name: string) => JSON.parse(example(join('events', `${name}.json`)));

test('the support-desk refund desk runs on PostgreSQL and every ledger verifies', async () => {
  const desk = new Helpdesk(':memory:');
  const keel = createKeel({
    store: await openScratchStore(url, schema),
    tools: supportDeskTools(desk),
    sources: fakeSources(),
  });
  const desk2 = new Helpdesk(':memory:');
  let keel2: ReturnType<typeof createKeel> | undefined;
  try {
    await deploy(
      keel,
      'acme',
      example('refund-under-50.yaml').replace('status: DRAFT', 'status: AUTONOMOUS'),
    );
    await deploy(
      keel,
      'acme',
      example('close-resolved-ticket.yaml').replace('status: DRAFT', 'status: LIVE'),
    );

    const refund30 = (await keel.events.emit('acme', event('refund-30'))).runs[0]!;
    assert.equal(refund30.status, 'completed');
    assert.deepEqual(
      desk.refunds('T-1001').map((r) => r.amount_cents),
      [3000],
    );
    const refund500 = (await keel.events.emit('acme', event('refund-500'))).runs[0]!;
    assert.equal(refund500.status, 'refused');
    assert.equal(desk.calls('issue_refund'), 1, 'the refused refund never reached the tool');
    const again = (await keel.events.emit('acme', event('refund-30'))).runs[0]!;
    assert.equal(again.runId, refund30.runId);
    assert.equal(again.created, false);

    const close = (await keel.events.emit('acme', event('ticket-resolved'))).runs[0]!;
    assert.equal(close.status, 'waiting_approval');
    assert.equal(desk.calls('close_ticket'), 0);

    // Another store on the same schema sees the runs and the pending approval...
    keel2 = createKeel({
      store: await openScratchStore(url, schema),
      tools: supportDeskTools(desk2),
      sources: fakeSources(),
    });
    assert.equal((await keel2.runs.list('acme')).runs.length, 3);
    assert.deepEqual(
      (await keel2.approvals.list('acme')).map((a) => a.runId),
      [close.runId],
    );
    assert.deepEqual((await keel2.runs.list('globex')).runs, [], 'another tenant sees nothing');
    // ...and when both race to approve it, exactly one decision is recorded and one close happens.
    const raced = await Promise.allSettled([
      keel.approvals.approve('acme', close.runId, 'dana'),
      keel2.approvals.approve('acme', close.runId, 'erin'),
    ]);
    const won = raced.filter((r) => r.status === 'fulfilled');
    assert.equal(won.length, 1, JSON.stringify(raced));
    assert.equal((won[0] as PromiseFulfilledResult<{ status: string }>).value.status, 'completed');
    const lost = (raced.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason;
    assert.ok(isKeelError(lost) && ['head_conflict', 'already_resolved'].includes(lost.code), String(lost));
    assert.equal(desk.calls('close_ticket') + desk2.calls('close_ticket'), 1);
    await assert.rejects(
      keel.approvals.approve('acme', close.runId, 'frank'),
      (e: unknown) =>
        isKeelError(e) && e.code === 'already_resolved' && /already approved by (dana|erin)/.test(e.message),
    );
    assert.deepEqual(await keel.approvals.list('acme'), []);

    for (const runId of [refund30.runId, refund500.runId, close.runId]) {
      const v = await keel.runs.verify('acme', runId);
      assert.equal(v.ok, true, `${runId}: ${JSON.stringify(v)}`);
    }
    const kinds = (await keel.runs.entries('acme', close.runId)).map((e) => e.kind);
    assert.equal(kinds.filter((k) => k === 'approval.resolved').length, 1, kinds.join(' '));
  } finally {
    await keel.close();
    await keel2?.close();
    desk.shutdown();
    desk2.shutdown();
  }
});
