import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createKeel } from '../app/index.ts';
import { isKeelError } from '../core/errors.ts';
import { fakeSources, setStatus, spyTool } from '../testing/index.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const REFUND_PLAN = join(HERE, 'corpus', 'allowed', 'refund-under-50.plan.ts');
const REFUND_YAML = join(HERE, '..', '..', 'examples', 'support-desk', 'refund-under-50.yaml');
const FORBIDDEN_PLAN = join(HERE, 'corpus', 'forbidden', 'date-now.plan.ts');

const dir = mkdtempSync(join(tmpdir(), 'keel-publish-plan-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const event = {
  id: 'evt-1',
  type: 'refund.requested',
  source: 'test',
  subject: 'T-1',
  time: '2026-01-01T00:00:00Z',
  payload: { currency: 'USD', refund_amount: 30 },
};

function deskKeel() {
  const reply = spyTool('draft_reply', {
    args: { type: 'object', required: ['ticket_id'], properties: { ticket_id: { type: 'string' } } },
  });
  const refund = spyTool('issue_refund', {
    args: {
      type: 'object',
      required: ['ticket_id', 'amount_usd'],
      properties: { ticket_id: { type: 'string' }, amount_usd: { type: 'number', exclusiveMinimum: 0 } },
    },
    destructive: true,
    effect: 'external',
    cost: { fromArg: 'amount_usd' },
  });
  const keel = createKeel({ store: ':memory:', tools: [reply, refund], sources: fakeSources() });
  return { keel, reply, refund };
}

/** Publishes one way, puts it at AUTONOMOUS (past the gates), emits the same event, and returns what happened. */
async function runVia(kind: 'yaml' | 'plan') {
  const { keel, reply, refund } = deskKeel();
  const { record } =
    kind === 'yaml'
      ? await keel.workflows.publish('acme', readFileSync(REFUND_YAML, 'utf8'), REFUND_YAML, 'alice')
      : await keel.workflows.publishPlan('acme', REFUND_PLAN, 'alice');
  await setStatus(keel, 'acme', record.workflowId, record.version, 'AUTONOMOUS', 'alice');
  const { runs } = await keel.events.emit('acme', event);
  assert.equal(runs.length, 1);
  const entries = await keel.runs.storedEntries('acme', runs[0]!.runId);
  const verified = await keel.runs.verify('acme', runs[0]!.runId);
  await keel.close();
  return { record, run: runs[0]!, entries, verified, reply, refund };
}

const isCode = (code: string, pattern?: RegExp) => (e: unknown) =>
  isKeelError(e) && e.code === code && (pattern === undefined || pattern.test(e.message));

describe('publishing a plan module', () => {
  test('it publishes and runs exactly like its YAML twin: same hash, same run id, same ledger bytes', async () => {
    const yaml = await runVia('yaml');
    const plan = await runVia('plan');
    assert.equal(plan.record.specHash, yaml.record.specHash);
    assert.equal(plan.record.status, 'DRAFT');
    assert.equal(plan.run.runId, yaml.run.runId);
    assert.equal(plan.run.status, 'completed');
    assert.equal(yaml.run.status, 'completed');
    assert.ok(plan.verified.ok);
    assert.deepEqual(
      plan.entries.map((e) => e.hash),
      yaml.entries.map((e) => e.hash),
    );
    assert.deepEqual(
      plan.refund.calls.map((c) => c.args),
      [{ ticket_id: 'T-1', amount_usd: 30 }],
    );
    assert.deepEqual(
      plan.reply.calls.map((c) => c.args),
      yaml.reply.calls.map((c) => c.args),
    );
  });

  test('a module that fails the check is refused and nothing is stored', async () => {
    const { keel } = deskKeel();
    await assert.rejects(
      keel.workflows.publishPlan('acme', FORBIDDEN_PLAN, 'alice'),
      isCode('determinism_violation', /date-now\.plan\.ts:8:33: Date\.now is not allowed in a plan module/),
    );
    assert.deepEqual(await keel.workflows.list('acme'), []);
    await keel.close();
  });

  test('the spec is validated against the registered tools and published only as DRAFT, naming the file', async () => {
    const { keel } = deskKeel();
    const unknownTool = join(dir, 'unknown-tool.plan.ts');
    writeFileSync(
      unknownTool,
      readFileSync(REFUND_PLAN, 'utf8').replace("tool: 'issue_refund'", "tool: 'issue_refnd'"),
    );
    await assert.rejects(
      keel.workflows.publishPlan('acme', unknownTool, 'alice'),
      isCode('spec_invalid', /unknown-tool\.plan\.ts: steps\[1\]\.tool: .*issue_refnd/),
    );
    const live = join(dir, 'live.plan.ts');
    writeFileSync(live, readFileSync(REFUND_PLAN, 'utf8').replace("status: 'DRAFT'", "status: 'LIVE'"));
    await assert.rejects(
      keel.workflows.publishPlan('acme', live, 'alice'),
      isCode('spec_invalid', /live\.plan\.ts: status: a version is published as DRAFT/),
    );
    assert.deepEqual(await keel.workflows.list('acme'), []);
    await keel.close();
  });
});
