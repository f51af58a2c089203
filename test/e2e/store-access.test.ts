/**
 * What commands may do to the store (src/cli/store-access.ts), through the real `keel` process:
 * a missing store is never created by a command that reads or writes to it; the commands that
 * create one say so, and a failing one leaves nothing behind; and an archived store in a directory
 * the reader cannot write is still read — `runs ls`, `verify`, `history`, `replay` — while a writing
 * command is refused.
 *
 * Read-only for real: as root, chmod stops nothing, so the reader is then root with every capability
 * dropped (setpriv), for whom the archive's directory and files really are read-only; the test first
 * proves that reader cannot create a file there. Not as root, the reader is the test's own user.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { Helpdesk } from '../../examples/support-desk/helpdesk.ts';
import { supportDeskTools } from '../../examples/support-desk/tools.ts';
import { createKeel } from '../../src/app/index.ts';
import { setStatus } from '../../src/testing/index.ts';
import {
  type CliOptions,
  exampleEvent,
  exampleSpec,
  failJson,
  failText,
  nodeCommand,
  okJson,
  runKeel,
  Sandbox,
  SUPPORT_DESK_PACK,
  show,
  supportDesk,
} from '../helpers/keel-cli.ts';
import { KeelServer } from '../helpers/keel-server.ts';

const sandbox = new Sandbox('store-access');
const reader: CliOptions = { unprivileged: true };
const locked: string[] = [];
after(() => {
  for (const d of locked) unlock(d);
  sandbox.remove();
});

/** A store built through the library: a completed refund and a ticket close waiting for approval. */
async function buildStore(dir: string): Promise<{ completed: string; waiting: string }> {
  mkdirSync(dir, { recursive: true });
  const desk = new Helpdesk(join(dir, 'helpdesk.db'));
  const keel = createKeel({ store: join(dir, 'keel.db'), tools: supportDeskTools(desk) });
  try {
    for (const [name, status] of [
      ['refund-under-50', 'AUTONOMOUS'],
      ['close-resolved-ticket', 'LIVE'],
    ] as const) {
      const file = exampleSpec(name);
      const { record } = await keel.workflows.publish('default', readFileSync(file, 'utf8'), file, 'dana');
      // Not a test of promotion: put at the status directly (a recorded fixture, past the gates).
      await setStatus(keel, 'default', name, record.version, status, 'dana');
    }
    const emit = async (e: Parameters<typeof exampleEvent>[0]) =>
      (await keel.events.emit('default', JSON.parse(readFileSync(exampleEvent(e), 'utf8')))).runs[0]!;
    return { completed: (await emit('refund-30')).runId, waiting: (await emit('ticket-resolved')).runId };
  } finally {
    await keel.close();
    desk.shutdown();
  }
}

/** Makes a directory and its files read-only (for the reader), and checks that it really is. */
function lockDown(dir: string): void {
  for (const f of readdirSync(dir)) chmodSync(join(dir, f), 0o444);
  chmodSync(dir, 0o555);
  locked.push(dir);
  const probe = spawnSync(
    ...nodeCommand(
      ['-e', `require('node:fs').writeFileSync(${JSON.stringify(join(dir, 'probe'))}, 'x')`],
      reader,
    ),
    { encoding: 'utf8' },
  );
  assert.notEqual(probe.status, 0, `the reader can still write in ${dir}: this test would prove nothing`);
  assert.match(probe.stderr, /EACCES|EPERM|EROFS/);
}

function unlock(dir: string): void {
  chmodSync(dir, 0o755);
  for (const f of readdirSync(dir)) chmodSync(join(dir, f), 0o644);
}

/** The support desk's tools for the commands that need them, its helpdesk apart from any store. */
const desk = supportDesk(join(sandbox.dir, 'desk', 'helpdesk.db'));

/** A command as the reader, with the support desk's tools (replay needs them) over a helpdesk in memory. */
const read = (store: string, args: string[]) =>
  runKeel(['--store', store, '--tools', SUPPORT_DESK_PACK, ...args], {
    ...reader,
    cwd: sandbox.dir,
    env: { HELPDESK_DB: ':memory:' },
  });

describe('a store that does not exist is created only by the commands that create one', () => {
  test('the default store: runs ls names it and how to choose or create one, and creates nothing', () => {
    const cwd = sandbox.write('empty/.gitkeep', '').replace(/\/\.gitkeep$/, '');
    const text = failText(runKeel(['runs', 'ls'], { cwd }), 6);
    assert.match(
      text,
      /no store at \.keel\/keel\.db: the default store; choose another with --store .* \[store_not_found\]/,
    );
    assert.equal(existsSync(join(cwd, '.keel')), false);
  });

  test('validate opens no store at all', () => {
    const store = join(sandbox.dir, 'never', 'keel.db');
    const r = runKeel(['--store', store, ...desk.args, 'validate', exampleSpec('refund-under-50')], {
      cwd: sandbox.dir,
      env: desk.env,
    });
    assert.equal(r.code, 0, show(r));
    assert.equal(existsSync(join(sandbox.dir, 'never')), false);
  });

  test('keel serve needs an existing store; with --create it makes one and serves it', async () => {
    const store = join(sandbox.dir, 'served', 'keel.db');
    const server = await KeelServer.start(sandbox, ['--create'], store);
    try {
      assert.ok(existsSync(store), 'serve --create created the store');
      // Announced once it listens (stderr may lag the JSON line on stdout by a moment).
      for (let i = 0; i < 50 && !server.stderr.includes('created store'); i++) await sleep(100);
      assert.match(server.stderr, new RegExp(`^created store ${store}$`, 'm'));
      const discovery = await fetch(`${server.url}/.well-known/openwop`);
      assert.equal(discovery.status, 200);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  test('a first publish creates the store and says so; a refused one leaves nothing behind', () => {
    const bad = sandbox.write('bad.yaml', 'id: x\n');
    const err = failJson(sandbox.keel(['publish', bad, '--json'], { sub: 'fresh/deeper' }), 2);
    assert.equal(err.error, 'spec_invalid');
    assert.equal(existsSync(join(sandbox.dir, 'fresh')), false, 'no store, no directory left');
    const first = sandbox.keel([...desk.args, 'publish', exampleSpec('refund-under-50')], {
      sub: 'fresh/deeper',
      env: desk.env,
    });
    assert.equal(first.code, 0, show(first));
    assert.equal(first.stderr, `created store ${sandbox.store('fresh/deeper')}\n`);
    const again = sandbox.keel([...desk.args, 'publish', exampleSpec('close-resolved-ticket')], {
      sub: 'fresh/deeper',
      env: desk.env,
    });
    assert.equal(again.code, 0, show(again));
    assert.equal(again.stderr, '', 'an existing store is not announced');
  });
});

describe('an archived store in a directory the reader cannot write', () => {
  const archive = join(sandbox.dir, 'archive');
  const store = join(archive, 'keel.db');
  let runs: { completed: string; waiting: string };
  let before_: string[];

  before(async () => {
    runs = await buildStore(archive);
    lockDown(archive);
    before_ = readdirSync(archive).sort();
  });

  test('runs ls, runs show, history, verify, replay and approvals ls read it', () => {
    const listed = okJson<{ runs: { runId: string }[] }>(read(store, ['runs', 'ls', '--json']));
    assert.deepEqual(listed.runs.map((r) => r.runId).sort(), [runs.completed, runs.waiting].sort());
    assert.equal(
      okJson<{ status: string }>(read(store, ['runs', 'show', runs.waiting, '--json'])).status,
      'waiting_approval',
    );
    const verified = okJson<{ ok: boolean; entries: number }>(
      read(store, ['verify', runs.completed, '--json']),
    );
    assert.equal(verified.ok, true);
    const history = read(store, ['history', runs.completed]);
    assert.equal(history.code, 0, show(history));
    assert.match(history.stdout, /refund/);
    assert.equal(
      okJson<{ identical: boolean }>(read(store, ['replay', runs.completed, '--json'])).identical,
      true,
    );
    assert.equal(okJson<unknown[]>(read(store, ['approvals', 'ls', '--json'])).length, 1);
    assert.deepEqual(readdirSync(archive).sort(), before_, 'reading created no file beside the store');
  });

  test('a command that writes is refused: store_unavailable (exit 6) saying it is read-only', () => {
    const err = failJson(read(store, ['emit', exampleEvent('refund-30'), '--json']), 6);
    assert.equal(err.error, 'store_unavailable');
    assert.match(err.message, /read-only here .*keel emit writes to the store/);
    assert.deepEqual(readdirSync(archive).sort(), before_);
  });
});

describe('an archived copy taken while its writer was open', () => {
  let completed = '';
  const live = join(sandbox.dir, 'live');

  before(async () => {
    mkdirSync(live);
    // The schema first, then a connection kept open while the runs are written: closing the last
    // connection would fold the WAL into the file, and this copy must hold commits only in its -wal.
    await createKeel({ store: join(live, 'keel.db') }).close();
    const holder = new Database(join(live, 'keel.db'));
    // A first read attaches it to the WAL; from then on it keeps the others from folding it away.
    holder.prepare('SELECT count(*) FROM runs').get();
    try {
      completed = (await buildStore(live)).completed;
      for (const name of ['with-shm', 'wal-only']) mkdirSync(join(sandbox.dir, name));
      for (const f of ['keel.db', 'keel.db-wal', 'keel.db-shm'])
        copyFileSync(join(live, f), join(sandbox.dir, 'with-shm', f));
      for (const f of ['keel.db', 'keel.db-wal'])
        copyFileSync(join(live, f), join(sandbox.dir, 'wal-only', f));
    } finally {
      holder.close();
    }
    assert.ok(
      statSync(join(sandbox.dir, 'with-shm', 'keel.db-wal')).size > 0,
      'the copy has commits in its -wal',
    );
    lockDown(join(sandbox.dir, 'with-shm'));
    lockDown(join(sandbox.dir, 'wal-only'));
  });

  test('with its -wal and -shm beside it, it is read in place, commits in the -wal included', () => {
    const listed = okJson<{ runs: { runId: string }[] }>(
      read(join(sandbox.dir, 'with-shm', 'keel.db'), ['runs', 'ls', '--json']),
    );
    assert.ok(
      listed.runs.some((r) => r.runId === completed),
      JSON.stringify(listed),
    );
  });

  test('with commits in its -wal but no -shm, it is refused rather than read without them', () => {
    const err = failJson(read(join(sandbox.dir, 'wal-only', 'keel.db'), ['runs', 'ls', '--json']), 6);
    assert.equal(err.error, 'store_unavailable');
    assert.match(err.message, /keel\.db-wal but no .*keel\.db-shm/);
  });
});
