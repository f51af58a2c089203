/**
 * Keel as an MCP server, driven by the MCP SDK's own client: over streamable HTTP under a real
 * `keel serve` app on 127.0.0.1, and over stdio against the real `keel mcp` command as a child
 * process. Both on real SQLite files. The tools are the tenant's LIVE workflows only; calls start
 * governed runs; nothing an MCP client can call approves.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Helpdesk, supportDeskTools } from '../../../examples/support-desk/index.ts';
import { createKeel } from '../../app/index.ts';
import { deploy, fakeSources } from '../../testing/index.ts';
import { KEEL_COMMAND } from '../../testing/keel-command.ts';
import { startServer } from '../serve.ts';

const PAYLOAD_SCHEMA = {
  type: 'object',
  required: ['orderId', 'amountUsd'],
  properties: { orderId: { type: 'string' }, amountUsd: { type: 'number', minimum: 0 } },
  additionalProperties: false,
};

const refund = (status = 'LIVE') => `
id: refund
version: 1
status: ${status}
description: Refund an order.
triggers:
  - event: refund.requested
    payloadSchema: ${JSON.stringify(PAYLOAD_SCHEMA)}
steps:
  - name: record
    tool: core.identity
    args: {order: "{{event.payload.orderId}}", amount: "{{event.payload.amountUsd}}"}
limits: {maxSteps: 2, maxCostUsd: 1}
`;
const gated = `
id: big-refund
version: 1
status: LIVE
triggers: [{event: big.refund}]
steps:
  - name: ask
    tool: core.approvalGate
    args: {title: "{{event.payload.why}}"}
limits: {maxSteps: 2, maxCostUsd: 1}
`;
const draft = `
id: not-yet
version: 1
status: DRAFT
triggers: [{event: x}]
steps: [{name: a, tool: core.noop, args: {}}]
limits: {maxSteps: 1, maxCostUsd: 1}
`;
const other = `
id: theirs
version: 1
status: LIVE
triggers: [{event: x}]
steps: [{name: a, tool: core.noop, args: {}}]
limits: {maxSteps: 1, maxCostUsd: 1}
`;

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempStore() {
  const dir = mkdtempSync(join(tmpdir(), 'keel-mcp-'));
  dirs.push(dir);
  return join(dir, 'keel.db');
}

async function seed(file: string) {
  const keel = createKeel({ store: file, sources: fakeSources() });
  await deploy(keel, 'acme', refund());
  await deploy(keel, 'acme', gated);
  await deploy(keel, 'acme', draft);
  await deploy(keel, 'globex', other);
  return keel;
}

type ToolResult = {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
};
const textOf = (r: ToolResult) => r.content.map((c) => c.text ?? '').join('\n');

async function exercise(client: Client) {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ['keel_run_status', 'start_big-refund', 'start_refund']);
  assert.ok(!tools.some((t) => /approv|deny|promote/i.test(t.name)), 'no tool approves anything');
  const start = tools.find((t) => t.name === 'start_refund')!;
  // {subject, event_id, payload}: the payload is the trigger's payloadSchema, required since it requires fields.
  const input = start.inputSchema as { properties: Record<string, unknown>; required?: string[] };
  assert.deepEqual(Object.keys(input.properties), ['subject', 'event_id', 'payload']);
  assert.deepEqual(input.properties.payload, { ...PAYLOAD_SCHEMA, description: 'the event payload' });
  assert.deepEqual(input.required, ['payload']);
  assert.equal((start.inputSchema as { additionalProperties?: boolean }).additionalProperties, false);
  assert.ok(start.description?.startsWith('Refund an order.'));
  // core.identity reads only; core.approvalGate is not destructive but asks a person.
  assert.deepEqual(start.annotations, {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  });

  const r = (await client.callTool({
    name: 'start_refund',
    arguments: { subject: 'order-A-1', payload: { orderId: 'A-1', amountUsd: 12 } },
  })) as ToolResult;
  assert.ok(!r.isError, textOf(r));
  const s = r.structuredContent!;
  assert.match(String(s.runId), /^sha256:[0-9a-f]{64}$/);
  assert.equal(s.status, 'completed');
  assert.equal(s.workflowId, 'refund');
  assert.ok(
    (s.history as string[]).some((h) => h.startsWith('Started refund v1')),
    String(s.history),
  );
  assert.ok(textOf(r).includes(`Run ${s.runId} of refund v1: completed`));

  // The same call again is the same event, so the same run: started once.
  const twice = (await client.callTool({
    name: 'start_refund',
    arguments: { subject: 'order-A-1', payload: { orderId: 'A-1', amountUsd: 12 } },
  })) as ToolResult;
  assert.equal(twice.structuredContent!.runId, s.runId);
  assert.match(textOf(twice), /the same call was made before: this is that run/);

  for (const [args, field] of [
    [{ payload: { orderId: 'A-2', amountUsd: -3 } }, /payload\.amountUsd/],
    [{ orderId: 'A-2', amountUsd: 3 }, /orderId|payload/],
    [{ subject: 7, payload: { orderId: 'A-2', amountUsd: 3 } }, /subject/],
    [{ event_id: '', payload: { orderId: 'A-2', amountUsd: 3 } }, /event_id/],
  ] as const) {
    const bad = (await client.callTool({ name: 'start_refund', arguments: args })) as ToolResult;
    assert.equal(bad.isError, true, JSON.stringify(args));
    assert.match(textOf(bad), field);
  }

  const g = (await client.callTool({
    name: 'start_big-refund',
    arguments: { payload: { why: 'damaged' } },
  })) as ToolResult;
  assert.equal(g.structuredContent!.status, 'waiting_approval');
  assert.match(textOf(g), /an MCP client cannot approve it/);

  const again = (await client.callTool({
    name: 'keel_run_status',
    arguments: { runId: s.runId },
  })) as ToolResult;
  assert.equal(again.structuredContent!.status, 'completed');
  const missing = (await client.callTool({ name: 'start_not-yet', arguments: {} })) as ToolResult;
  assert.equal(missing.isError, true);
  const foreign = (await client.callTool({ name: 'start_theirs', arguments: {} })) as ToolResult;
  assert.equal(foreign.isError, true, "another tenant's workflow is not a tool here");
  return { runId: String(s.runId), gatedRunId: String(g.structuredContent!.runId) };
}

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('keel as an MCP server', () => {
  test('a trigger payloadSchema is validated when the spec is', () => {
    const keel = createKeel({ store: ':memory:' });
    assert.equal(keel.workflows.validate(refund(), 'r.yaml').spec.triggers[0]!.payloadSchema?.type, 'object');
    assert.throws(
      () => keel.workflows.validate(refund().replace('"type":"object"', '"type":"string"'), 'r.yaml'),
      /triggers\[0\]\.payloadSchema\.type/,
    );
    assert.throws(
      () => keel.workflows.validate(refund().replace('"minimum":0', '"minimum":"zero"'), 'r.yaml'),
      /triggers\[0\]\.payloadSchema: not a valid JSON Schema/,
    );
  });

  test('over streamable HTTP at /mcp under keel serve, with the tenant API key', async () => {
    const file = tempStore();
    const keel = await seed(file);
    const { key } = await keel.keys.create('acme', 'assistant');
    const server = await startServer(keel, { port: 0, hostname: '127.0.0.1' });
    try {
      const unauth = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(unauth.status, 401);

      const client = new Client({ name: 'test-assistant', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${key}`, traceparent: TRACEPARENT } },
        }),
      );
      const { runId, gatedRunId } = await exercise(client);
      await client.close();
      assert.equal((await keel.runs.get('acme', runId)).status, 'completed');
      assert.equal((await keel.approvals.list('acme', gatedRunId)).length > 0, true);
      // The HTTP request's traceparent is recorded in the root of the run it started.
      const root = (await keel.runs.entries('acme', runId))[0]!.payload as { traceparent?: string };
      assert.equal(root.traceparent, TRACEPARENT);
    } finally {
      await server.close();
      await keel.close();
    }
  });

  test('the shipped refund desk over /mcp: the subject reaches the steps, and the same call refunds once (issue 26)', async () => {
    const file = tempStore();
    const desk = new Helpdesk(join(dirname(file), 'helpdesk.db'));
    const keel = createKeel({ store: file, tools: supportDeskTools(desk) });
    const spec = readFileSync(
      new URL('../../../examples/support-desk/refund-under-50.yaml', import.meta.url),
      'utf8',
    ).replace(/^status: DRAFT$/m, 'status: AUTONOMOUS');
    await deploy(keel, 'acme', spec);
    const { key } = await keel.keys.create('acme', 'assistant');
    const server = await startServer(keel, { port: 0, hostname: '127.0.0.1' });
    const client = new Client({ name: 'test-assistant', version: '1' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${key}` } },
        }),
      );
      const { tools } = await client.listTools();
      const input = tools.find((t) => t.name === 'start_refund-under-50')!.inputSchema as {
        required?: string[];
      };
      assert.deepEqual(input.required, ['subject'], 'its steps read {{event.subject}}');
      const call = async (args: Record<string, unknown>) =>
        (await client.callTool({ name: 'start_refund-under-50', arguments: args })) as ToolResult;
      const refund = { subject: 'T-1001', payload: { refund_amount: 30, currency: 'USD' } };

      // Without a subject the call is refused naming it, and nothing runs.
      const missing = await call({ payload: refund.payload });
      assert.equal(missing.isError, true);
      assert.match(textOf(missing), /subject/);

      const first = await call({ ...refund, event_id: 'evt-refund-T-1001' });
      assert.ok(!first.isError, textOf(first));
      assert.equal(first.structuredContent!.status, 'completed', textOf(first));
      assert.equal(desk.calls('issue_refund'), 1);
      // The same call with the same event id: the first run, refunded once.
      const again = await call({ ...refund, event_id: 'evt-refund-T-1001' });
      assert.equal(again.structuredContent!.runId, first.structuredContent!.runId);
      assert.equal(desk.calls('issue_refund'), 1, 'one refund for one event id');
      // Without an event id the id is derived from subject and payload: twice is still once.
      const derived = await call(refund);
      assert.notEqual(derived.structuredContent!.runId, first.structuredContent!.runId);
      assert.equal((await call(refund)).structuredContent!.runId, derived.structuredContent!.runId);
      assert.equal(desk.calls('issue_refund'), 2);
      // The subject reached the steps: the refund is for ticket T-1001.
      const history = (first.structuredContent!.history as string[]).join('\n');
      assert.match(history, /T-1001/);
      const root = (await keel.runs.entries('acme', String(first.structuredContent!.runId)))[0]!.payload as {
        event: { id: string; subject: string; source: string };
      };
      assert.deepEqual(
        [root.event.id, root.event.subject, root.event.source],
        ['evt-refund-T-1001', 'T-1001', 'mcp'],
      );
    } finally {
      await client.close();
      await server.close();
      await keel.close();
      desk.shutdown();
    }
  });

  test('over stdio: keel mcp as a child process, the tenant from --tenant', async () => {
    const file = tempStore();
    const keel = await seed(file);
    await keel.close();
    const client = new Client({ name: 'test-assistant', version: '1' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...KEEL_COMMAND, 'mcp', '--store', file, '--tenant', 'acme'],
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    await client.connect(transport);
    try {
      await exercise(client);
    } finally {
      await client.close();
    }
    assert.equal(stderr.includes('Error'), false, stderr);
    const reopened = createKeel({ store: file });
    const page = await reopened.runs.list('acme');
    assert.equal(
      page.runs.length,
      2,
      'two runs started through MCP (the repeated call and the invalid ones started none)',
    );
    await reopened.close();
  });
});
