/**
 * The CLI fuzzed (issue 13 §5): the `keel` program's own `main`, run in a worker thread of this
 * process (spawning a process per case would take seconds each), on a real SQLite store, with spec, event, policy and
 * writ files from test/helpers/input-grammars.ts and odd ids. Every command ends — never an
 * internal error (exit 1), a stack trace, a flood of echoed input or a hang — and a refusal
 * changes nothing in the store. One case per class of input that once went wrong, spawned as the
 * real command: a file that never ends (`/dev/zero`) is refused after one byte past the limit.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { DEEP_YAML_SHAPES, deepSpecText } from '../../src/testing/deep-yaml.ts';
import { CliWorker, type Ran } from '../helpers/cli-in-process.ts';
import { eventValue, nestedText, oddString, specText } from '../helpers/input-grammars.ts';
import { failJson, runKeel } from '../helpers/keel-cli.ts';
import { putAtStatus } from '../helpers/lifecycle.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-cli-fuzz-'));
const store = join(dir, 'keel.db');
let db: Database.Database;

const cli = new CliWorker();

/** `keel --store <store> --tenant acme ...args`, run by the CLI's own main in a worker thread. */
function keel(...args: string[]): Promise<Ran> {
  return cli.run(['--store', store, '--tenant', 'acme', ...args]);
}

let n = 0;
function file(content: string, ext: string): string {
  const path = join(dir, `f${++n}.${ext}`);
  writeFileSync(path, content);
  return path;
}

function storeDigest(): string {
  const h = createHash('sha256');
  const tables = db
    .prepare(
      // A conflicting redelivery is refused and recorded, by design (docs/http.md, "Events").
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('workers', 'event_conflicts') ORDER BY name",
    )
    .all() as { name: string }[];
  for (const { name } of tables) {
    const rows = db
      .prepare(`SELECT * FROM "${name}"`)
      .all()
      .map((r) => JSON.stringify(r));
    h.update(`${name}\n${rows.sort().join('\n')}\n`);
  }
  return h.digest('hex');
}

before(async () => {
  const spec = file(
    'id: fz-live\nversion: 1\nstatus: DRAFT\ntriggers: [{event: ping}]\nsteps:\n  - {name: echo, tool: core.identity, args: {a: "{{event.payload.a}}", all: "{{event.payload}}"}}\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
    'yaml',
  );
  assert.equal((await keel('publish', spec)).code, 0);
  // Not a test of promotion: put at LIVE directly (a recorded fixture, past the gates).
  await putAtStatus(store, 'acme', 'fz-live', 'LIVE');
  db = new Database(store, { readonly: true });
});
after(async () => {
  await cli.stop();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const json = (v: unknown) => JSON.stringify(v) ?? 'null';

/** Event files: JSON of an event, and texts that are not one (or are one too many times over). */
const eventText = fc.oneof(
  { arbitrary: eventValue.map(json), weight: 5 },
  fc.constantFrom(
    '{"id": "a", "id": "b", "type": "ping", "time": "2026-01-31T12:00:00Z"}',
    `{"id": "deep", "type": "ping", "time": "2026-01-31T12:00:00Z", "payload": ${nestedText(10_000)}}`,
    `{"id": "big", "type": "ping", "time": "2026-01-31T12:00:00Z", "payload": {"a": "${'x'.repeat(1_100_000)}"}}`,
    'id: yaml\ntype: ping\n',
    '',
    '\u0000\u0001',
    '[1, 2]',
  ),
);

/**
 * An argument as typed: no leading dashes (an option, not an id), never empty, and at most 600
 * characters — a shell's own limits bound what is typed (and echoed back); files are where the
 * large inputs come from.
 */
const typed = oddString.map((s) => s.replace(/^-+/, '').slice(0, 600) || 'x');

const command: fc.Arbitrary<string[]> = fc.oneof(
  specText.chain((t) => fc.constantFrom('validate', 'publish').map((c) => [c, file(t, 'yaml')])),
  eventText.map((t) => ['emit', file(t, 'json')]),
  eventText.map((t) => ['run', 'fz-live', file(t, 'json')]),
  specText.map((t) => ['policy', 'check', file(t, 'yaml')]),
  fc.jsonValue({ maxDepth: 3 }).map((v) => ['writs', 'inspect', file(json(v), 'json')]),
  fc
    .tuple(fc.constantFrom('runs show', 'history', 'verify', 'replay', 'approve', 'deny', 'cancel'), typed)
    .map(([c, id]) => [...c.split(' '), id]),
  fc.tuple(typed, typed).map(([w, s]) => ['promote', w, s]),
  fc
    .tuple(typed, fc.constantFrom('0', '-1', 'abc', '1e400'))
    .map(([id, from]) => ['fork', id, '--from', from, '--mode', 'replay']),
  // Tools files: loading one never starts or reaches an MCP server (an unapproved one is refused).
  specText.map((t) => ['--tools', file(t, 'yaml'), 'tools', 'ls']),
  fc.jsonValue({ maxDepth: 4 }).map((v) => ['--tools', file(json({ mcp: v }), 'json'), 'tools', 'ls']),
);

describe('the CLI, fuzzed in process', () => {
  test('every command ends with a code from the table, one short line, and a refusal changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(command, async (args) => {
        const before = storeDigest();
        const r = await keel(...args);
        const shown = `keel ${args.join(' ').slice(0, 200)} -> ${r.code}\n${r.stderr.slice(0, 500)}`;
        assert.notEqual(r.code, 1, `an internal error: ${shown}`);
        assert.doesNotMatch(r.stderr, /\n\s+at /, `a stack trace: ${shown}`);
        assert.ok(r.stderr.length < 20_000, `${r.stderr.length} characters on stderr: ${shown}`);
        if (r.code !== 0) {
          assert.match(r.stderr, /^error: /, shown);
          assert.equal(storeDigest(), before, `the refusal changed the store: ${shown}`);
        }
      }),
      { numRuns: 80, includeErrorInReport: true },
    );
    const running = db.prepare("SELECT run_id FROM runs WHERE status = 'running'").all();
    assert.deepEqual(running, [], 'every run a fuzzed event started ended');
  });
});

describe('the classes of CLI input that once went wrong', () => {
  test('a spec whose YAML gives 1 and "1", and an alias bomb, are refused (were accepted)', async () => {
    const dup = file(
      'id: fz-a\nversion: 1\nstatus: DRAFT\nsteps: [{name: s, tool: core.noop, args: {1: x, "1": y}}]\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
      'yaml',
    );
    const r = await keel('--json', 'validate', dup);
    assert.equal(r.code, 2);
    assert.equal(JSON.parse(r.stderr).details.field, 'steps[0].args["1"]');
    const list = `[${Array(4000).fill('x').join(',')}]`;
    const bomb = file(
      `id: fz-a\nversion: 1\nstatus: DRAFT\nsteps: [{name: s, tool: core.noop, args: {a: &a ${list}, b: *a, c: *a}}]\nlimits: {maxSteps: 1, maxCostUsd: 0}\n`,
      'yaml',
    );
    const b = await keel('--json', 'publish', bomb);
    assert.equal(b.code, 2);
    assert.equal(JSON.parse(b.stderr).error, 'payload_too_large');
  });

  test('an event with a key given twice is refused naming it (was accepted)', async () => {
    const before = storeDigest();
    const r = await keel(
      '--json',
      'emit',
      file('{"id": "a", "type": "ping", "id": "b", "time": "2026-01-31T12:00:00Z"}', 'json'),
    );
    assert.equal(r.code, 2);
    assert.deepEqual(
      [JSON.parse(r.stderr).error, JSON.parse(r.stderr).details.field],
      ['event_invalid', 'id'],
    );
    assert.equal(storeDigest(), before);
  });

  test('an event nested 20,000 deep is payload_too_large (was "Maximum call stack size exceeded")', async () => {
    const text = `{"id": "d", "type": "ping", "time": "2026-01-31T12:00:00Z", "payload": ${nestedText(10_000)}}`;
    const r = await keel('--json', 'emit', file(text, 'json'));
    assert.equal(r.code, 2);
    assert.deepEqual(
      [JSON.parse(r.stderr).error, JSON.parse(r.stderr).details.limit],
      ['payload_too_large', 'maxDepth'],
    );
  });

  test('a spec nested 3,000 and 100,000 deep in every YAML shape is payload_too_large naming maxDepth and the field (issue 26)', async () => {
    const before = storeDigest();
    for (const shape of Object.keys(DEEP_YAML_SHAPES))
      for (const n of [3_000, 100_000]) {
        for (const cmd of ['validate', 'publish']) {
          const r = await keel('--json', cmd, file(deepSpecText(shape, n), 'yaml'));
          assert.equal(r.code, 2, `${shape} ${n} ${cmd}: ${r.stderr.slice(0, 300)}`);
          const e = JSON.parse(r.stderr);
          assert.deepEqual([e.error, e.details.limit], ['payload_too_large', 'maxDepth'], `${shape} ${n}`);
          assert.match(e.details.field, /^steps\[0\]\.args\.a[[.]/, `${shape} ${n}`);
        }
      }
    assert.equal(storeDigest(), before);
  });

  test('the issue 26 case as the real command: `- - - … 1` 3,000 deep under an argument is exit 2, not 1', () => {
    const r = runKeel([
      '--store',
      store,
      '--json',
      'validate',
      file(deepSpecText('compact sequence', 3_000), 'yaml'),
    ]);
    const e = failJson(r, 2);
    assert.deepEqual([e.error, e.details?.limit, e.details?.max], ['payload_too_large', 'maxDepth', 32]);
  });

  test('a refusal quotes a 100,000-character field in an excerpt (was echoed whole)', async () => {
    const r = await keel(
      'emit',
      file(
        json({ id: 'e', type: 'ping', time: '2026-01-31T12:00:00Z', tenant: 'x'.repeat(100_000) }),
        'json',
      ),
    );
    assert.equal(r.code, 2);
    assert.ok(r.stderr.length < 500, r.stderr.slice(0, 500));
  });

  test('a tenant that is no API-key name is refused before anything is written', async () => {
    const r = await keel('--tenant', '../other', 'publish', file('id: x\n', 'yaml'));
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^error: tenant: expected 1-64 characters/);
  });

  test('a file that never ends is refused after one byte past the limit (the real command)', () => {
    const r = runKeel(['--store', store, '--json', 'validate', '/dev/zero'], { timeoutMs: 60_000 });
    const e = failJson(r, 2);
    assert.deepEqual([e.error, e.details?.limit, e.details?.max], ['payload_too_large', 'maxBytes', 262144]);
  });
});
