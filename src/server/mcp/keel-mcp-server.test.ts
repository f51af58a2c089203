/**
 * Keel as an MCP server, driven by the MCP SDK's own client: over streamable HTTP under a real
 * `keel serve` app on 127.0.0.1, and over stdio against the real `keel mcp` command as a child
 * process. Both on real SQLite files. The tools are the tenant's LIVE workflows only; calls start
 * governed runs; nothing an MCP client can call approves.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
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
  assert.deepEqual(start.inputSchema, PAYLOAD_SCHEMA);
  assert.ok(start.description?.startsWith('Refund an order.'));
  // core.identity reads only; core.approvalGate is not destructive but asks a person.
  assert.deepEqual(start.annotations, {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  });

  const r = (await client.callTool({
    name: 'start_refund',
    arguments: { orderId: 'A-1', amountUsd: 12 },
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

  const bad = (await client.callTool({
    name: 'start_refund',
    arguments: { orderId: 'A-2', amountUsd: -3 },
  })) as ToolResult;
  assert.equal(bad.isError, true);
  assert.match(textOf(bad), /amountUsd/);

  const g = (await client.callTool({
    name: 'start_big-refund',
    arguments: { why: 'damaged' },
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
    assert.equal(page.runs.length, 2, 'two runs started through MCP (the invalid call started none)');
    await reopened.close();
  });
});
