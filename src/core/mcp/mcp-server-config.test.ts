import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isKeelError } from '../errors.ts';
import { type ApprovedMcpTool, approvedTool, parseMcpLock } from './mcp-lock.ts';
import { DEFAULT_MCP_TIMEOUT_MS, parseMcpSection } from './mcp-server-config.ts';
import { mcpToolHash } from './mcp-tool-descriptor.ts';

/** The message of the usage error `f` throws. */
function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert.ok(isKeelError(e), String(e));
    assert.equal(e.code, 'usage');
    return e.message;
  }
  assert.fail('expected a refusal');
}

describe('parseMcpSection', () => {
  it('reads a stdio server and a streamable HTTP server', () => {
    const servers = parseMcpSection(
      {
        files: {
          command: 'node',
          args: ['server.mjs'],
          env: ['FILES_ROOT'],
          include: ['read'],
          overrides: {
            read: { approval: 'always' },
            write: { cost: 0.05 },
            bill: { cost: { fromArg: 'usd' } },
          },
        },
        search: { url: 'http://127.0.0.1:8080/mcp', timeoutMs: 5000 },
      },
      'tools.yaml',
    );
    assert.deepEqual(servers, [
      {
        name: 'files',
        transport: { kind: 'stdio', command: 'node', args: ['server.mjs'], env: ['FILES_ROOT'] },
        include: ['read'],
        // A cost takes the same forms as any tool's: 0.05 is {fixedUsd: 0.05}.
        overrides: {
          read: { approval: 'always' },
          write: { cost: { fixedUsd: 0.05 } },
          bill: { cost: { fromArg: 'usd' } },
        },
        timeoutMs: DEFAULT_MCP_TIMEOUT_MS,
      },
      {
        name: 'search',
        transport: { kind: 'http', url: 'http://127.0.0.1:8080/mcp' },
        overrides: {},
        timeoutMs: 5000,
      },
    ]);
  });

  it("reads an HTTP server's headers as text and secrets; none leaves the transport as it was", () => {
    const [s] = parseMcpSection(
      { search: { url: 'http://h/mcp', headers: { Authorization: 'Bearer {{secret.SEARCH_TOKEN}}' } } },
      'tools.yaml',
    );
    assert.deepEqual(s!.transport, {
      kind: 'http',
      url: 'http://h/mcp',
      headers: [
        {
          name: 'Authorization',
          value: [
            { kind: 'text', text: 'Bearer ' },
            { kind: 'secret', name: 'SEARCH_TOKEN' },
          ],
        },
      ],
    });
  });

  it('refuses each malformed field, naming the file and the field', () => {
    const cases: [unknown, RegExp][] = [
      [[], /tools\.yaml: mcp: expected a mapping/],
      [{ 'a.b': { command: 'x' } }, /mcp\.a\.b: a server name/],
      [{ s: {} }, /mcp\.s: expected exactly one of `command`/],
      [{ s: { command: 'x', url: 'http://h/' } }, /mcp\.s: expected exactly one/],
      [{ s: { command: '' } }, /mcp\.s\.command: expected a non-empty string/],
      [{ s: { command: 'x', args: [1] } }, /mcp\.s\.args: expected a list of strings/],
      [{ s: { command: 'x', env: ['A=1'] } }, /mcp\.s\.env: expected a list of environment variable names/],
      [{ s: { url: 'ftp://h/' } }, /mcp\.s\.url: expected an http/],
      [{ s: { url: 'http://u:p@h/' } }, /mcp\.s\.url: a URL carries no credentials/],
      [{ s: { url: 'http://h/', env: ['A'] } }, /belong to a stdio server/],
      [
        { s: { command: 'x', headers: { A: 'b' } } },
        /mcp\.s\.headers: headers belong to a streamable HTTP server/,
      ],
      [{ s: { url: 'http://h/', headers: ['A'] } }, /mcp\.s\.headers: expected a mapping of header names/],
      [{ s: { url: 'http://h/', headers: { 'a b': 'x' } } }, /mcp\.s\.headers\.a b: not a valid header name/],
      [
        { s: { url: 'http://h/', headers: { Accept: 'x' } } },
        /headers\.Accept: the MCP client sets this header itself/,
      ],
      [{ s: { url: 'http://h/', headers: { A: 1 } } }, /headers\.A: expected a string/],
      [
        { s: { url: 'http://h/', headers: { A: '{{args.q}}' } } },
        /headers\.A: a server header reads only \{\{secret\.NAME\}\}/,
      ],
      [
        { s: { url: 'http://h/', headers: { A: '{{secret.}}' } } },
        /headers\.A: \{\{secret\.\}\}: expected an environment variable name/,
      ],
      [{ s: { command: 'x', oops: 1 } }, /mcp\.s\.oops: unknown field/],
      [
        { s: { command: 'x', overrides: { t: { effect: 'delete' } } } },
        /mcp\.s\.overrides\.t\.effect: expected one of/,
      ],
      [
        { s: { command: 'x', overrides: { t: { scopes: [] } } } },
        /mcp\.s\.overrides\.t\.scopes: unknown field/,
      ],
      [
        { s: { command: 'x', overrides: { t: { destructive: 'yes' } } } },
        /overrides\.t\.destructive: expected true or false/,
      ],
      [
        { s: { command: 'x', overrides: { t: { cost: { fixed: 5 } } } } },
        /mcp\.s\.overrides\.t\.cost\.fixed: unknown field; did you mean "fixedUsd"\?/,
      ],
      [
        { s: { command: 'x', overrides: { t: { cost: 0.005 } } } },
        /mcp\.s\.overrides\.t\.cost: expected a USD amount >= 0 with at most 2 decimals/,
      ],
      [{ s: { command: 'x', timeoutMs: 0 } }, /mcp\.s\.timeoutMs: expected a whole number/],
      [{ s: { command: 'x', include: [] } }, /mcp\.s\.include: expected a non-empty list/],
    ];
    for (const [section, expected] of cases)
      assert.match(
        refusal(() => parseMcpSection(section, 'tools.yaml')),
        expected,
      );
  });
});

describe('parseMcpLock', () => {
  const tool: ApprovedMcpTool = approvedTool({
    name: 'lookup',
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: true, title: 'x' } as never,
  });

  it('keeps only the hints and hashes what Keel judges a call by', () => {
    assert.deepEqual(tool.annotations, { readOnlyHint: true });
    assert.equal(tool.hash, mcpToolHash(tool));
    assert.notEqual(tool.hash, mcpToolHash({ ...tool, inputSchema: { type: 'object', required: ['k'] } }));
    assert.notEqual(tool.hash, mcpToolHash({ ...tool, annotations: { readOnlyHint: false } }));
  });

  it('refuses a lock whose recorded schema was edited by hand', () => {
    const lock = {
      version: 1,
      servers: {
        files: {
          connection: 'sha256:x',
          tools: [{ ...tool, inputSchema: { type: 'object', properties: {} } }],
        },
      },
    };
    assert.match(
      refusal(() => parseMcpLock(lock, 'tools.mcp-lock.json')),
      /tool "lookup": its recorded schema does not match its hash/,
    );
    assert.match(
      refusal(() => parseMcpLock({ version: 2 }, 'l.json')),
      /expected an MCP lock file of version 1/,
    );
  });
});
