/**
 * The MCP client against a real MCP SDK server (test/fixtures/mcp): over stdio, the fixture as a
 * child process the client spawns, and over streamable HTTP on 127.0.0.1 port 0. Approving writes
 * the lock file; loading connects to nothing; a call connects, checks the schema hash and calls;
 * the server counts calls on its own side. Closing ends the child process.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { STDIO_FIXTURE_ARGS, startHttpFixture } from '../../../test/fixtures/mcp/fixture-mcp-server.ts';
import type { ToolContext, ToolDefinition } from '../../ports/index.ts';
import { approveMcpTools, mcpLockPath, mcpToolsFrom } from './mcp-tools.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-mcp-client-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ctx = (step = 'a'): ToolContext => ({
  tenant: 't',
  runId: 'sha256:run',
  step,
  idempotencyKey: `key-${step}`,
  attempt: 1,
});

const stdioSection = (extra: Record<string, unknown> = {}) => ({
  files: {
    command: process.execPath,
    args: [...STDIO_FIXTURE_ARGS],
    env: [
      'MCP_FIXTURE_CALLS',
      'MCP_FIXTURE_VARIANT',
      'MCP_FIXTURE_PIDS',
      'MCP_FIXTURE_DOWN',
      'MCP_FIXTURE_SECRET',
      'MCP_FIXTURE_LOSE',
    ],
    ...extra,
  },
});

/** A tool by name, or fail. */
function toolOf(tools: readonly ToolDefinition[], name: string): ToolDefinition {
  const t = tools.find((x) => x.name === name);
  assert.ok(t, `${name} in ${tools.map((x) => x.name).join(', ')}`);
  return t;
}

/** The code and message a handler threw. */
async function failure(p: Promise<unknown> | unknown): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    return { code: (e as { code: string }).code, message: (e as Error).message };
  }
  assert.fail('expected the call to fail');
}

const lines = (file: string) =>
  existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [];

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('MCP tools over stdio', () => {
  const file = join(dir, 'stdio-tools.yaml');
  const calls = join(dir, 'stdio-calls.jsonl');
  const pids = join(dir, 'stdio-pids');
  const env = (over: Record<string, string> = {}) => {
    const vars: Record<string, string> = { MCP_FIXTURE_CALLS: calls, MCP_FIXTURE_PIDS: pids, ...over };
    return (n: string) => vars[n];
  };

  it('refuses to load a server nobody approved, naming it and the command that approves it', async () => {
    await assert.rejects(
      mcpToolsFrom(stdioSection(), { file, env: env() }),
      /MCP server "files" is not approved yet: run keel tools approve/,
    );
  });

  it('approves: lists the tools into the lock file beside the tools file', async () => {
    const r = await approveMcpTools(stdioSection(), { file, env: env() });
    assert.equal(r.lockFile, join(dir, 'stdio-tools.mcp-lock.json'));
    assert.deepEqual(
      r.changes.map((c) => `${c.change} ${c.name}`),
      ['new files.lookup', 'new files.append_note', 'new files.wipe', 'new files.refuse'],
    );
    const lock = JSON.parse(readFileSync(mcpLockPath(file), 'utf8'));
    assert.equal(lock.servers.files.tools[0].name, 'lookup');
    assert.deepEqual(lines(calls), [], 'listing calls no tool');
  });

  it('registers the approved tools with flags from the annotations, without starting the server', async () => {
    const before = lines(pids).length;
    const mcp = await mcpToolsFrom(stdioSection(), { file, env: env() });
    try {
      const flags = Object.fromEntries(
        mcp.tools.map((t) => [t.name, [t.effect, t.destructive, t.idempotent, t.scopes.join()].join(' ')]),
      );
      assert.deepEqual(flags, {
        'files.lookup': 'read false true files.*',
        'files.append_note': 'write false true files.*',
        'files.wipe': 'external true false files.*',
        'files.refuse': 'read false true files.*',
      });
      assert.deepEqual(toolOf(mcp.tools, 'files.lookup').args, {
        type: 'object',
        properties: { key: { type: 'string' } },
        required: ['key'],
        additionalProperties: false,
      });
      assert.equal(lines(pids).length, before, 'loading started no server');
    } finally {
      await mcp.close();
    }
  });

  it('calls through the SDK client: a structured answer, the idempotency key, counted by the server; close ends the child', async () => {
    const started = lines(pids).length;
    const mcp = await mcpToolsFrom(stdioSection(), { file, env: env() });
    let pid: number;
    try {
      const out = await toolOf(mcp.tools, 'files.lookup').handler({ key: 'k1' }, ctx('s1'));
      assert.deepEqual(out, { key: 'k1', value: 'value-of-k1' });
      const note = await toolOf(mcp.tools, 'files.append_note').handler({ text: 'hi' }, ctx('s2'));
      assert.deepEqual(note, { content: [{ type: 'text', text: 'noted 1: hi' }] });
      const seen = lines(calls).map((l) => JSON.parse(l));
      assert.deepEqual(seen, [
        { tool: 'lookup', args: { key: 'k1' }, idempotencyKey: 'key-s1' },
        { tool: 'append_note', args: { text: 'hi' }, idempotencyKey: 'key-s2' },
      ]);
      const e = await failure(toolOf(mcp.tools, 'files.refuse').handler({}, ctx()));
      assert.equal(e.code, 'mcp_tool_error');
      assert.match(
        e.message,
        /MCP server "files" tool "refuse" answered an error: the fixture refuses this call/,
      );
      pid = Number(lines(pids).at(-1));
      assert.ok(alive(pid), 'one server process for every call');
      assert.equal(lines(pids).length, started + 1, 'one connection for all calls');
    } finally {
      await mcp.close();
    }
    for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(alive(pid), false, 'closing ended the server process');
    rmSync(calls, { force: true });
  });

  it('a non-idempotent call sent and never answered is outcome_unknown (the run suspends), never a plain failure', async () => {
    const section = stdioSection();
    await approveMcpTools(section, { file, env: env() });
    const mcp = await mcpToolsFrom(section, { file, env: env({ MCP_FIXTURE_LOSE: '1' }) });
    try {
      const wipe = toolOf(mcp.tools, 'files.wipe');
      assert.equal(wipe.idempotent, false);
      const e = await failure(wipe.handler({}, ctx('w1')));
      assert.equal(e.code, 'outcome_unknown');
      assert.match(
        e.message,
        /MCP server "files" \(tool "wipe"\) was sent but no answer came \(.*\): whether it acted is unknown/,
      );
      assert.deepEqual(
        lines(calls).map((l) => JSON.parse(l).tool),
        ['wipe'],
        'the server took the call',
      );
    } finally {
      await mcp.close();
      rmSync(calls, { force: true });
    }
  });

  it("refuses a call when the server changed the tool's schema, naming server and tool, calling nothing", async () => {
    const mcp = await mcpToolsFrom(stdioSection(), { file, env: env({ MCP_FIXTURE_VARIANT: 'v2' }) });
    try {
      const e = await failure(toolOf(mcp.tools, 'files.lookup').handler({ key: 'k1', scope: 'x' }, ctx()));
      assert.equal(e.code, 'mcp_tool_changed');
      assert.match(
        e.message,
        /MCP server "files" tool "lookup": its schema changed since it was approved \(approved sha256:[0-9a-f]{64}, now sha256:[0-9a-f]{64}\)/,
      );
      assert.match(e.message, /keel tools approve/);
      assert.deepEqual(lines(calls), [], 'the changed tool was never called');
      // The unchanged tools still work.
      await toolOf(mcp.tools, 'files.wipe').handler({}, ctx());
      assert.equal(lines(calls).length, 1);
    } finally {
      await mcp.close();
    }
    rmSync(calls, { force: true });
  });

  it('a server that is down is an error naming server and tool, never a value it was given', async () => {
    const secret = 'tok-3f9a1c77e2';
    const mcp = await mcpToolsFrom(stdioSection(), {
      file,
      env: env({ MCP_FIXTURE_DOWN: '1', MCP_FIXTURE_SECRET: secret }),
    });
    try {
      const e = await failure(toolOf(mcp.tools, 'files.lookup').handler({ key: 'k' }, ctx()));
      assert.equal(e.code, 'mcp_server_unavailable');
      assert.match(e.message, /MCP server "files" \(tool "lookup"\) is down or unreachable/);
      assert.match(e.message, /fixture down; token \[env MCP_FIXTURE_SECRET\]/, 'its stderr, masked');
      assert.doesNotMatch(e.message, new RegExp(secret));
    } finally {
      await mcp.close();
    }
  });

  it('refuses a server reached differently than approved, an override lowering caution, an unknown tool', async () => {
    await assert.rejects(
      mcpToolsFrom(stdioSection({ args: [...STDIO_FIXTURE_ARGS, '--other'] }), { file, env: env() }),
      /MCP server "files" is reached differently than when it was approved/,
    );
    await assert.rejects(
      mcpToolsFrom(stdioSection({ overrides: { wipe: { destructive: false } } }), { file, env: env() }),
      /MCP server "files", tool "wipe": overrides\.destructive: false is less cautious than the server's true/,
    );
    await assert.rejects(
      mcpToolsFrom(stdioSection({ include: ['nope'] }), { file, env: env() }),
      /MCP server "files" offered no tool "nope" when it was approved/,
    );
    const more = await mcpToolsFrom(
      stdioSection({
        include: ['lookup'],
        overrides: { lookup: { approval: 'always', effect: 'external' } },
      }),
      { file, env: env() },
    );
    assert.deepEqual(
      more.tools.map((t) => [t.name, t.effect, t.approval]),
      [['files.lookup', 'external', 'always']],
    );
    await more.close();
  });
});

describe('MCP tools over streamable HTTP on 127.0.0.1', async () => {
  const fixture = await startHttpFixture('v1');
  after(() => fixture.close());
  const file = join(dir, 'http-tools.json');
  const section = { search: { url: fixture.url } };
  writeFileSync(file, JSON.stringify({ mcp: section }));

  it('approves, calls, counts on the server; a schema change refuses until approved again', async () => {
    const r = await approveMcpTools(section, { file });
    assert.equal(r.changes.length, 4);
    let mcp = await mcpToolsFrom(section, { file });
    try {
      assert.deepEqual(await toolOf(mcp.tools, 'search.lookup').handler({ key: 'h' }, ctx()), {
        key: 'h',
        value: 'value-of-h',
      });
      assert.equal(fixture.calls.length, 1);
      fixture.variant = 'v2';
      const fresh = await mcpToolsFrom(section, { file });
      const e = await failure(toolOf(fresh.tools, 'search.lookup').handler({ key: 'h', scope: 's' }, ctx()));
      await fresh.close();
      assert.equal(e.code, 'mcp_tool_changed');
      assert.match(e.message, /MCP server "search" tool "lookup": its schema changed/);
      assert.equal(fixture.calls.length, 1, 'nothing called');
    } finally {
      await mcp.close();
    }
    const again = await approveMcpTools(section, { file });
    assert.deepEqual(
      again.changes.filter((c) => c.change !== 'unchanged').map((c) => `${c.change} ${c.name}`),
      ['changed search.lookup'],
    );
    mcp = await mcpToolsFrom(section, { file });
    try {
      await toolOf(mcp.tools, 'search.lookup').handler({ key: 'h', scope: 's' }, ctx());
      assert.equal(fixture.calls.length, 2);
    } finally {
      await mcp.close();
      fixture.variant = 'v1';
    }
  });

  it('headers read secrets from the environment: sent to the server, never in an error', async () => {
    const token = 'tok-7f3a9c2e-secret';
    const guarded = await startHttpFixture('v1', { token });
    const gFile = join(dir, 'guarded-tools.json');
    const s = { guarded: { url: guarded.url, headers: { Authorization: 'Bearer {{secret.GUARD_TOKEN}}' } } };
    try {
      await assert.rejects(
        approveMcpTools(s, { file: gFile, env: () => undefined }),
        /MCP server "guarded": secret GUARD_TOKEN \(header Authorization\) is not set in the environment/,
      );
      assert.equal(guarded.refused, 0, 'nothing was sent without the secret');
      await approveMcpTools(s, { file: gFile, env: (n) => (n === 'GUARD_TOKEN' ? token : undefined) });
      const mcp = await mcpToolsFrom(s, {
        file: gFile,
        env: (n) => (n === 'GUARD_TOKEN' ? token : undefined),
      });
      try {
        assert.deepEqual(await toolOf(mcp.tools, 'guarded.lookup').handler({ key: 'k' }, ctx()), {
          key: 'k',
          value: 'value-of-k',
        });
        assert.equal(guarded.calls.length, 1);
      } finally {
        await mcp.close();
      }
      // A wrong token: the server refuses, and the error masks the value that was sent.
      const wrong = `${token}-wrong`;
      const bad = await mcpToolsFrom(s, {
        file: gFile,
        env: (n) => (n === 'GUARD_TOKEN' ? wrong : undefined),
      });
      try {
        const e = await failure(toolOf(bad.tools, 'guarded.lookup').handler({ key: 'k' }, ctx()));
        assert.equal(e.code, 'mcp_server_unavailable');
        assert.ok(guarded.refused > 0);
        assert.ok(!e.message.includes(wrong) && !e.message.includes(token), e.message);
        assert.equal(guarded.calls.length, 1);
      } finally {
        await bad.close();
      }
    } finally {
      await guarded.close();
    }
  });

  it('what a server answers is masked of its header secrets, in any encoding it echoes them in (issue 26)', async () => {
    const token = 'sk/CANARY+mcp/tok==';
    const guarded = await startHttpFixture('v1', { token });
    const gFile = join(dir, 'echoing-tools.json');
    const s = { guarded: { url: guarded.url, headers: { Authorization: 'Bearer {{secret.GUARD_TOKEN}}' } } };
    const env = (n: string) => (n === 'GUARD_TOKEN' ? token : undefined);
    try {
      await approveMcpTools(s, { file: gFile, env });
      const mcp = await mcpToolsFrom(s, { file: gFile, env });
      try {
        // The fixture's lookup answers the key it was given: here the token, as a service echoes it.
        for (const echoed of [
          token,
          JSON.stringify(token).slice(1, -1).replace(/\//g, '\\/'),
          Buffer.from(token).toString('base64'),
          encodeURIComponent(token),
          token.replace(/\//g, '&#47;'),
        ]) {
          const out = await toolOf(mcp.tools, 'guarded.lookup').handler({ key: echoed }, ctx());
          const text = JSON.stringify(out);
          assert.ok(!text.includes(token) && !text.includes(echoed), text);
          assert.deepEqual(out, { key: '[secret GUARD_TOKEN]', value: 'value-of-[secret GUARD_TOKEN]' });
        }
      } finally {
        await mcp.close();
      }
    } finally {
      await guarded.close();
    }
  });

  it('a server that is down is an error naming server and tool', async () => {
    const down = await startHttpFixture('v1');
    const downFile = join(dir, 'down-tools.json');
    const s = { gone: { url: down.url } };
    await approveMcpTools(s, { file: downFile });
    await down.close();
    const mcp = await mcpToolsFrom(s, { file: downFile });
    try {
      const e = await failure(toolOf(mcp.tools, 'gone.wipe').handler({}, ctx()));
      assert.equal(e.code, 'mcp_server_unavailable');
      assert.match(e.message, /MCP server "gone" \(tool "wipe"\) is down or unreachable/);
    } finally {
      await mcp.close();
    }
  });
});
