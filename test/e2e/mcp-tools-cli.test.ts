/**
 * MCP servers' tools through the real `keel` command: a tools file (`--tools tools.yaml`) names a
 * stdio server (the SDK fixture as the CLI's child process) and a streamable HTTP server (the
 * fixture on 127.0.0.1 port 0 in this process). `keel tools approve` writes the lock file, `tools
 * ls` lists the tools as registry entries, publish/run/history call them under every check, and
 * replay and a replay fork call neither server (counted on the servers' side). A writ scoped to one
 * server's tools refuses the other's, and a destructive tool waits for a person, before any call. A schema change and
 * a server that is down fail the step with an error naming server and tool, and call nothing.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { KEEL_COMMAND } from '../../src/testing/keel-command.ts';
import {
  type HttpFixture,
  STDIO_FIXTURE_ARGS,
  startHttpFixture,
} from '../fixtures/mcp/fixture-mcp-server.ts';
import { type CliResult, failJson, okJson, Sandbox, show } from '../helpers/keel-cli.ts';

const sandbox = new Sandbox('mcp-tools');
const calls = join(sandbox.dir, 'stdio-calls.jsonl');
const pids = join(sandbox.dir, 'stdio-pids');
let http: HttpFixture;

/**
 * `keel --store <sandbox> ...args`, run without blocking this process: the HTTP fixture it calls
 * lives here and must keep answering while the command runs.
 */
function keel(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  const started = performance.now();
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NO_COLOR: '1',
    MCP_FIXTURE_CALLS: calls,
    MCP_FIXTURE_PIDS: pids,
    ...env,
  };
  for (const k of Object.keys(childEnv))
    if (k.startsWith('KEEL_') || k === 'NODE_TEST_CONTEXT') delete childEnv[k];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...KEEL_COMMAND, '--store', sandbox.store(), ...args], {
      cwd: sandbox.dir,
      env: childEnv,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ args, code: code ?? -1, stdout, stderr, ms: performance.now() - started });
    });
  });
}

/** Whether a process is still running. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const stdioCalls = () =>
  existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n').filter(Boolean).length : 0;

function toolsYaml(url: string): string {
  return `mcp:
  files:
    command: ${JSON.stringify(process.execPath)}
    args: ${JSON.stringify(STDIO_FIXTURE_ARGS)}
    env: [MCP_FIXTURE_CALLS, MCP_FIXTURE_VARIANT, MCP_FIXTURE_PIDS]
    include: [lookup]
  search:
    url: ${url}
    overrides:
      append_note: { approval: always }
`;
}

const SPEC = `id: mcp-notes
version: 1
status: DRAFT
triggers: [{ event: note.requested }]
steps:
  - { name: look, tool: files.lookup, args: { key: "{{event.subject}}" } }
  - { name: again, tool: search.lookup, args: { key: "{{steps.look.output.value}}" } }
limits: { maxSteps: 2, maxCostUsd: 0 }
`;

/** A destructive MCP tool (no hints: the MCP defaults), which a person must approve first. */
const WIPE_SPEC = `id: mcp-wipe
version: 1
status: DRAFT
triggers: [{ event: wipe.requested }]
steps:
  - { name: wipe, tool: search.wipe, args: {} }
limits: { maxSteps: 1, maxCostUsd: 0 }
`;

const EVENT = {
  id: 'evt-note-1',
  type: 'note.requested',
  source: 'test',
  subject: 'K-1',
  time: '2026-12-01T09:00:00Z',
  payload: {},
};

before(async () => {
  http = await startHttpFixture('v1');
  sandbox.write('tools.yaml', toolsYaml(http.url));
  sandbox.write('mcp-notes.yaml', SPEC);
  sandbox.write('mcp-wipe.yaml', WIPE_SPEC);
  sandbox.write('event.json', EVENT);
  sandbox.write('event-2.json', { ...EVENT, id: 'evt-note-2', subject: 'K-2' });
  sandbox.write('event-3.json', { ...EVENT, id: 'evt-note-3', subject: 'K-3' });
  sandbox.write('event-w.json', { ...EVENT, id: 'evt-note-w', subject: 'K-W' });
});
after(async () => {
  await http.close();
  sandbox.remove();
});

describe('MCP tools through the keel command', () => {
  let runId: string;

  test('an unapproved tools file is refused, naming the server and the command that approves it', async () => {
    const r = await keel(['--tools', 'tools.yaml', 'tools', 'ls', '--json']);
    const e = failJson(r, 2);
    assert.equal(e.error, 'usage');
    assert.match(e.message, /MCP server "files" is not approved yet: run keel tools approve tools\.yaml/);
    assert.equal(e.details?.server, 'files');
  });

  test('keel tools approve lists both servers into the lock file; tools ls shows them as registry entries', async () => {
    const approved = okJson<{ lockFile: string; changes: { name: string; change: string }[] }>(
      await keel(['tools', 'approve', 'tools.yaml', '--json']),
    );
    assert.equal(approved.lockFile, join(sandbox.dir, 'tools.mcp-lock.json'));
    assert.deepEqual(approved.changes.map((c) => c.name).sort(), [
      'files.append_note',
      'files.lookup',
      'files.refuse',
      'files.wipe',
      'search.append_note',
      'search.lookup',
      'search.refuse',
      'search.wipe',
    ]);
    const ls = okJson<{ tools: Record<string, unknown>[] }>(
      await keel(['--tools', 'tools.yaml', 'tools', 'ls', '--json']),
    );
    const mcp = ls.tools.filter((t) => t.source === 'mcp');
    assert.deepEqual(
      mcp.map((t) => [
        t.name,
        t.server,
        t.transport,
        t.effect,
        t.destructive,
        t.idempotent,
        t.approval ?? null,
      ]),
      [
        ['files.lookup', 'files', 'stdio', 'read', false, true, null],
        ['search.append_note', 'search', 'http', 'write', false, true, 'always'],
        ['search.lookup', 'search', 'http', 'read', false, true, null],
        ['search.refuse', 'search', 'http', 'read', false, true, null],
        ['search.wipe', 'search', 'http', 'external', true, false, null],
      ],
    );
    assert.deepEqual(mcp[0]!.scopes, ['files.*']);
    assert.match(String(mcp[0]!.schemaHash), /^sha256:[0-9a-f]{64}$/);
    assert.ok(ls.tools.some((t) => t.source === 'core'));
    assert.equal(stdioCalls() + http.calls.length, 0, 'approving and listing call no tool');
  });

  test('publish, run and history: each server called once, recorded in the ledger', async () => {
    okJson(await keel(['--tools', 'tools.yaml', '--json', 'publish', 'mcp-notes.yaml', '--as', 'alice']));
    const run = okJson<{ runId: string; status: string }>(
      await keel(['--tools', 'tools.yaml', '--json', 'run', 'mcp-notes', 'event.json', '--live', '--yes']),
    );
    assert.equal(run.status, 'completed');
    runId = run.runId;
    assert.equal(stdioCalls(), 1);
    const started = readFileSync(pids, 'utf8').trim().split('\n').map(Number);
    assert.ok(started.length >= 2, 'approve and run each started the stdio server');
    // Reparented once its command exits, an ended server may take a moment to be reaped.
    for (let i = 0; i < 30 && started.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(started.filter(alive), [], 'every stdio server a command started ended with it');
    assert.deepEqual(
      http.calls.map((c) => [c.tool, c.args]),
      [['lookup', { key: 'value-of-K-1' }]],
    );
    const history = await keel(['--tools', 'tools.yaml', 'history', runId]);
    assert.equal(history.code, 0, show(history));
    assert.match(history.stdout, /files\.lookup/);
    assert.match(history.stdout, /search\.lookup/);
    const entries = okJson<{ entries?: unknown[] } | unknown[]>(
      await keel(['--tools', 'tools.yaml', '--json', 'audit', 'ls', '--run', runId]),
    );
    assert.match(JSON.stringify(entries), /value-of-K-1/, 'the answer is recorded');
  });

  test('replay and a replay fork make zero calls to either server', async () => {
    const replay = okJson<{ identical: boolean }>(
      await keel(['--tools', 'tools.yaml', '--json', 'replay', runId]),
    );
    assert.equal(replay.identical, true);
    const fork = okJson<{ status: string }>(
      await keel(['--tools', 'tools.yaml', '--json', 'fork', runId, '--from', '1', '--mode', 'replay']),
    );
    assert.equal(fork.status, 'completed');
    assert.equal(stdioCalls(), 1, 'stdio server: still the one live call');
    assert.equal(http.calls.length, 1, 'HTTP server: still the one live call');
  });

  test("a writ scoped to one server's tools (files.*) refuses the other server's tool before it is called", async () => {
    const keys = join(sandbox.dir, 'keys');
    okJson(await keel(['--json', '--tenant', 'default', 'writs', 'keygen', '--out', keys]));
    sandbox.write('writ-request.json', {
      id: 'files-only',
      tenant: 'default',
      subject: 'mcp-notes',
      scopes: ['files.*'],
      budget: { cents: 0, steps: 5, calls: 5 },
      window: { notBefore: '2026-01-01T00:00:00Z', notAfter: '2100-01-01T00:00:00Z' },
      effectCeiling: { max: 'external', destructive: true },
      delegation: { maxDepth: 0, maySubdivide: false },
    });
    okJson(
      await keel([
        '--json',
        'writs',
        'issue',
        'writ-request.json',
        '--key',
        join(keys, 'default.key.pem'),
        '--out',
        'files-only.writ.json',
      ]),
    );
    const trust = ['--trust-keys', join(keys, 'default.pub.pem')];
    const r = await keel([
      '--tools',
      'tools.yaml',
      '--json',
      ...trust,
      'run',
      'mcp-notes',
      'event-w.json',
      '--live',
      '--yes',
      '--writ',
      'files-only.writ.json',
    ]);
    const run = okJson<{ runId: string; status: string }>(r);
    assert.equal(run.status, 'refused', show(r));
    assert.equal(stdioCalls(), 2, 'files.lookup is within files.* and was called');
    assert.equal(http.calls.length, 1, 'search.lookup is not, and the server was never called');
    const history = await keel(['--tools', 'tools.yaml', ...trust, 'history', run.runId]);
    assert.match(history.stdout, /search\.lookup is not within writ/, show(history));
  });

  test('a destructive MCP tool waits for a person before the server is called', async () => {
    okJson(await keel(['--tools', 'tools.yaml', '--json', 'publish', 'mcp-wipe.yaml', '--as', 'alice']));
    const run = okJson<{ status: string }>(
      await keel(['--tools', 'tools.yaml', '--json', 'run', 'mcp-wipe', 'event.json', '--live', '--yes']),
    );
    assert.equal(run.status, 'waiting_approval');
    assert.equal(http.calls.length, 1, 'the HTTP server was not called');
  });

  test('a changed schema fails the step naming server and tool, and calls nothing until approved again', async () => {
    const r = await keel(
      ['--tools', 'tools.yaml', '--json', 'run', 'mcp-notes', 'event-2.json', '--live', '--yes'],
      {
        MCP_FIXTURE_VARIANT: 'v2',
      },
    );
    const run = okJson<{ runId: string; status: string }>(r);
    assert.equal(run.status, 'failed', show(r));
    const history = await keel(['--tools', 'tools.yaml', 'history', run.runId]);
    assert.match(
      history.stdout,
      /MCP server "files" tool "lookup": its schema changed since it was approved/,
      show(history),
    );
    assert.equal(stdioCalls(), 2, 'the changed tool was not called');
    assert.equal(http.calls.length, 1, 'the walk stopped at the failed step');
    // Approved again, the same tools file calls the changed tool.
    okJson(await keel(['tools', 'approve', 'tools.yaml', '--json'], { MCP_FIXTURE_VARIANT: 'v2' }));
    const lookup = okJson<{ tools: { name: string; args: { required?: string[] } }[] }>(
      await keel(['--tools', 'tools.yaml', 'tools', 'ls', '--json']),
    ).tools.find((t) => t.name === 'files.lookup');
    assert.deepEqual(lookup?.args.required, ['key', 'scope']);
    okJson(await keel(['tools', 'approve', 'tools.yaml', '--json']));
  });

  test('a server that is down fails the step naming server and tool', async () => {
    await http.close();
    const r = await keel([
      '--tools',
      'tools.yaml',
      '--json',
      'run',
      'mcp-notes',
      'event-3.json',
      '--live',
      '--yes',
    ]);
    const run = okJson<{ runId: string; status: string }>(r);
    assert.equal(run.status, 'failed', show(r));
    assert.equal(stdioCalls(), 3, 'the first step still ran');
    const history = await keel(['--tools', 'tools.yaml', 'history', run.runId]);
    assert.match(
      history.stdout,
      /MCP server "search" \(tool "lookup"\) is down or unreachable/,
      show(history),
    );
    // The recorded runs still replay with the server gone: nothing reaches for it.
    const replay = okJson<{ identical: boolean }>(
      await keel(['--tools', 'tools.yaml', '--json', 'replay', runId]),
    );
    assert.equal(replay.identical, true);
    rmSync(calls, { force: true });
  });
});
