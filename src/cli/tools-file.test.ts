/**
 * Tools files at the CLI edge: told from tool packs by extension, YAML and JSON read, unknown
 * sections refused by name, a `tools:` section's HTTP tools registered, and an `mcp:` section
 * loaded from its lock file without connecting to anything.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { approvedTool, connectionHash, parseMcpSection } from '../core/mcp/index.ts';
import { isToolsFile, loadToolsFile, readToolsFile } from './tools-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-tools-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('tools files', () => {
  it('are told from tool packs by their extension', () => {
    for (const f of ['tools.yaml', 'a/b.YML', 'x.json']) assert.equal(isToolsFile(f), true, f);
    for (const f of ['keel.tools.ts', 'pack.mjs', 'pack.js', 'tools']) assert.equal(isToolsFile(f), false, f);
  });

  it('refuses what is not a mapping of known sections, naming the file and the key', () => {
    assert.throws(
      () => readToolsFile(write('list.yaml', '- a\n')),
      /list\.yaml: expected a mapping with `mcp:` or `tools:`/,
    );
    assert.throws(() => readToolsFile(write('bad.json', '{')), /bad\.json.*YAML: /s);
    assert.throws(() => readToolsFile(write('bad.yaml', 'mcp: [\n')), /bad\.yaml.*YAML: /s);
    assert.throws(() => readToolsFile(write('twice.yaml', 'mcp: {}\nmcp: {}\n')), /twice\.yaml.*mcp/s);
    assert.throws(
      () => readToolsFile(write('extra.yaml', 'mcp: {}\nservers: {}\n')),
      /extra\.yaml: servers: not a section of a tools file/,
    );
    assert.throws(() => readToolsFile(join(dir, 'missing.yaml')), /missing\.yaml: cannot read it/);
  });

  it('registers a `tools:` section as HTTP tools', async () => {
    const loaded = await loadToolsFile(
      write(
        'http.yaml',
        'tools:\n  - name: get_order\n    description: reads an order\n    method: GET\n    url: http://127.0.0.1:9/orders/{{args.id}}\n    effect: read\n    args: {type: object, properties: {id: {type: string}}, required: [id]}\n',
      ),
    );
    assert.deepEqual(
      loaded.tools.map((t) => [t.name, t.effect]),
      [['get_order', 'read']],
    );
    await loaded.close();
  });

  it('loads an approved `mcp:` section from its lock file, connecting to nothing', async () => {
    // A server at a port nothing listens on: loading must not notice.
    const section = { remote: { url: 'http://127.0.0.1:9/mcp' } };
    const file = write('remote.json', JSON.stringify({ mcp: section }));
    const [server] = parseMcpSection(section, file);
    const tool = approvedTool({
      name: 'find',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
    });
    write(
      'remote.mcp-lock.json',
      JSON.stringify({
        version: 1,
        servers: { remote: { connection: connectionHash(server!), tools: [tool] } },
      }),
    );
    const loaded = await loadToolsFile(file);
    try {
      assert.deepEqual(
        loaded.tools.map((t) => [t.name, t.effect]),
        [['remote.find', 'read']],
      );
      assert.deepEqual(loaded.origins.get('remote.find'), {
        kind: 'mcp',
        server: 'remote',
        mcpTool: 'find',
        transport: 'http',
        schemaHash: tool.hash,
      });
    } finally {
      await loaded.close();
    }
  });
});
