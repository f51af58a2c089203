/**
 * The console against hostile values, in real headless Chromium on a real `keel serve`: every page
 * fits a 390×844 phone and a 1280×800 desktop without scrolling sideways (a table scrolls in its own
 * box), and every control is within the window, with a 5,000-character argument without spaces,
 * long notes and a long override reason; a direction override in an argument is shown as an escape
 * and reverses nothing; a run whose ledger was edited reads "unverified", its edited entry marked,
 * and what the API would refuse disabled, saying why; a TESTING version's tests run from its page
 * and the gate is judged again; a workflow's page does not keep the version picked on another's;
 * the empty states read as written; a wait step and a loop are drawn in the flow.
 *
 * The tests in this file build on each other, in order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../../src/testing/chromium.ts';
import {
  countRequests,
  drawnLefts,
  fitOf,
  inWrittenOrder,
  settled,
  shot,
  signIn,
  until,
  watchErrors,
} from '../helpers/console-browser.ts';
import { okJson, Sandbox } from '../helpers/keel-cli.ts';
import { KeelServer } from '../helpers/keel-server.ts';
import { putAtStatus } from '../helpers/lifecycle.ts';
import { entryRows, putEntryRow } from '../helpers/sqlite-files.ts';

const sandbox = new Sandbox('console-fit');
/** Two tools over nothing: a destructive one (every call waits for a person) and a plain one. */
const PACK = sandbox.write(
  'tools.mjs',
  `const text = { type: 'string', maxLength: 20000 };
export default function pack() {
  return [
    {
      name: 'archive_file',
      description: 'Archives a file. Destructive.',
      args: { type: 'object', required: ['name'], properties: { name: text }, additionalProperties: false },
      destructive: true, effect: 'write', idempotent: true, scopes: ['files.archive'],
      handler: (a) => ({ archived: a.name.length }),
      simulate: (a) => ({ archived: a.name.length }),
    },
    {
      name: 'keep_note',
      description: 'Keeps a note.',
      args: { type: 'object', required: ['text'], properties: { text }, additionalProperties: false },
      destructive: false, effect: 'write', idempotent: true, scopes: ['notes.write'],
      handler: (a) => ({ kept: a.text.length }),
      simulate: (a) => ({ kept: a.text.length }),
    },
  ];
}
`,
);
const spec = (
  id: string,
  version: number,
  event: string,
  step: string,
  tool: string,
  arg: string,
  extra = '',
) =>
  sandbox.write(
    `${id}-v${version}.yaml`,
    `id: ${id}
version: ${version}
status: DRAFT
description: ${id}, for the console's fit.
triggers:
  - event: ${event}
steps:
  - name: ${step}
    tool: ${tool}
    args:
      ${arg}: "{{event.payload.${arg}}}"
limits:
  maxSteps: 2
  maxCostUsd: 0
${extra}`,
  );

const SPOOF = 'invoice-\u202Efdp.exe';
const LONG = `${'a'.repeat(2500)}${'b'.repeat(2500)}`; // 5,000 characters, no space
const LONG_NOTE = `note-${'n'.repeat(3990)}`;
const LONG_REASON = `reason-${'r'.repeat(3990)}`;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

let server: KeelServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let dana: string;
let newcomer: string;
const pageErrors: string[] = [];
const runs = { spoof: '', long: '', denied: '', kept: '' };

const key = (tenant: string, subject: string) =>
  okJson<{ key: string }>(
    sandbox.keel(['keys', 'create', '--tenant', tenant, '--subject', subject, '--human', '--json']),
  ).key;

async function emit(id: string, type: string, payload: Record<string, unknown>, subject = id) {
  const r = await server.api<{ runs: { runId: string }[] }>('POST', '/api/events', {
    key: dana,
    body: { id, type, subject, time: '2026-11-30T09:15:00Z', payload },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.runs[0]!.runId;
}

async function reached(runId: string, status: string) {
  await server.waitFor(`/api/runs/${runId}`, dana, (s) => s === status);
}

/** Opens `at` (a fragment) and waits until its heading is drawn and its reads are done. */
async function open(at: string) {
  await page.goto(`${server.url}/console/${at}`);
  await page.locator('main h1').first().waitFor();
  await settled(page);
}

async function assertFits(what: string) {
  const fit = await fitOf(page);
  assert.ok(
    fit.scroll <= fit.width,
    `${what}: the page is ${fit.scroll} px wide in a ${fit.width} px window`,
  );
  assert.deepEqual(fit.outside, [], `${what}: controls outside the ${fit.width} px window`);
}

before(async () => {
  const keel = (...args: string[]) => okJson(sandbox.keel(['--tools', PACK, '--tenant', 'acme', ...args]));
  keel('publish', spec('archive-file', 1, 'file.received', 'archive', 'archive_file', 'name'), '--json');
  keel('publish', spec('keep-note', 1, 'note.received', 'keep', 'keep_note', 'text'), '--json');
  const tests = `tests:
  - name: keeps the note
    event: { type: note.received, payload: { text: hello } }
    expect: { status: completed, steps: [keep] }
`;
  keel('publish', spec('keep-note', 2, 'note.received', 'keep', 'keep_note', 'text', tests), '--json');
  keel(
    'publish',
    sandbox.write(
      'weekly-archive.yaml',
      `id: weekly-archive
version: 1
status: DRAFT
triggers:
  - schedule: { cron: "0 9 * * 1", timezone: Europe/Berlin, missed: skip }
steps:
  - { name: archive, tool: archive_file, args: { name: "{{event.payload.scheduledFor}}" } }
limits: { maxSteps: 1, maxCostUsd: 0 }
`,
    ),
    '--json',
  );
  await putAtStatus(sandbox.store(), 'acme', 'archive-file', 'LIVE');
  await putAtStatus(sandbox.store(), 'acme', 'weekly-archive', 'LIVE');
  await putAtStatus(sandbox.store(), 'acme', 'keep-note', 'LIVE', { version: 1 });
  await putAtStatus(sandbox.store(), 'acme', 'keep-note', 'TESTING', { version: 2 });
  dana = key('acme', 'dana@example.com');
  newcomer = key('initech', 'ines@example.com');
  server = await KeelServer.start(sandbox, ['--tools', PACK]);
  runs.spoof = await emit('evt-spoof', 'file.received', { name: SPOOF });
  runs.long = await emit('evt-long', 'file.received', { name: LONG }, `S-${'s'.repeat(500)}`);
  runs.denied = await emit('evt-denied', 'file.received', { name: LONG });
  runs.kept = await emit('evt-kept', 'note.received', { text: LONG });
  for (const r of [runs.spoof, runs.long, runs.denied]) await reached(r, 'waiting_approval');
  await reached(runs.kept, 'completed');
  const denied = await server.api('POST', `/api/runs/${runs.denied}/deny`, {
    key: dana,
    body: { note: LONG_NOTE },
  });
  assert.equal(denied.status, 200, JSON.stringify(denied.body));
  const promoted = await server.api('POST', '/api/workflows/keep-note/promote', {
    key: dana,
    body: { to: 'AUTONOMOUS', version: 1, override: { reason: LONG_REASON } },
  });
  assert.equal(promoted.status, 200, JSON.stringify(promoted.body));
  browser = await launchChromium();
  context = await browser.newContext({ viewport: DESKTOP });
  page = await context.newPage();
  countRequests(page);
  watchErrors(page, pageErrors, /status of 40[0-9] /);
});

after(async () => {
  await browser?.close();
  await server?.stop();
  sandbox.remove();
});

describe('the console with hostile values', { timeout: 180_000 }, () => {
  test('every page fits a phone and a desktop, every control within the window', async () => {
    for (const size of [PHONE, DESKTOP]) {
      await page.setViewportSize(size);
      const at = `${size.width}×${size.height}`;
      await page.goto(`${server.url}/console/`);
      await page.getByLabel('API key').waitFor();
      await assertFits(`sign-in at ${at}`);
      await page.getByLabel('API key').fill(dana);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('header .who').waitFor();
      for (const where of [
        '#/approvals',
        '#/runs',
        `#/runs/${encodeURIComponent(runs.long)}`,
        `#/runs/${encodeURIComponent(runs.denied)}`,
        `#/runs/${encodeURIComponent(runs.kept)}`,
        '#/workflows',
        '#/workflows/keep-note',
        '#/workflows/archive-file',
        '#/workflows/weekly-archive',
        '#/new',
      ]) {
        await open(where);
        // Every entry and every card opened: what is folded away must fit too once shown.
        await page.evaluate("for (const d of document.querySelectorAll('main details')) d.open = true");
        await settled(page);
        await assertFits(`${where} at ${at}`);
        if (size === PHONE && where === '#/approvals') await shot(page, 'phone-inbox');
      }
      // The long argument sits in its card, and the card's buttons within reach.
      await open('#/approvals');
      const card = page.locator(`li.approval[data-run="${runs.long}"]`);
      assert.match(await card.locator('pre.json').innerText(), /a{2500}b{2500}/);
      for (const name of ['Approve', 'Deny']) {
        const box = (await card.getByRole('button', { name }).boundingBox())!;
        assert.ok(box.x >= 0 && box.x + box.width <= size.width, `${name} at x ${box.x} in ${at}`);
      }
      // A draft from a long request, with its questions or read-back shown.
      await open('#/new');
      await page.getByLabel('Request').fill(`When a file is received, archive it. ${'x'.repeat(1500)}`);
      await page.getByRole('button', { name: 'Draft' }).click();
      await page.locator('[data-testid="draft"], [role="alert"]').first().waitFor();
      await assertFits(`a draft at ${at}`);
      await page.getByRole('button', { name: 'Sign out' }).click();
    }
    await signIn(page, server.url, dana);
  });

  test('a direction override in an argument is shown as an escape, and reverses nothing', async () => {
    await open('#/approvals');
    const card = `li.approval[data-run="${runs.spoof}"]`;
    const args = await page.locator(`${card} pre.json`).innerText();
    assert.match(args, /"name": "invoice-⟨U\+202E⟩fdp\.exe"/);
    assert.doesNotMatch(await page.locator('main').innerText(), /[\u202A-\u202E\u2066-\u2069]/);
    const drawn = await drawnLefts(page, `${card} pre.json`, 'fdp.exe');
    assert.ok(drawn && inWrittenOrder(drawn), `"fdp.exe" drawn at ${drawn}`);

    // The run's timeline: the value escaped, and Keel's sentence after it drawn as written.
    await open(`#/runs/${encodeURIComponent(runs.spoof)}`);
    const waiting = 'ol.timeline > li.k-approval-requested';
    assert.match(
      await page.locator(waiting).innerText(),
      /name="invoice-⟨U\+202E⟩fdp\.exe": archive_file is destructive/,
    );
    for (const word of ['fdp.exe', 'destructive']) {
      const at = await drawnLefts(page, waiting, word);
      assert.ok(at && inWrittenOrder(at), `"${word}" drawn at ${at}`);
    }
    // The ledger keeps the value as it came: only what is shown is escaped.
    assert.ok(entryRows(sandbox.store(), runs.spoof).some((e) => e.payload.toString('utf8').includes(SPOOF)));
  });

  test('a run whose ledger was edited reads unverified, its entry marked, and nothing is offered that the API refuses', async () => {
    const rows = entryRows(sandbox.store(), runs.kept);
    const row = rows.find((e) => e.kind === 'step.completed')!;
    const edited = Buffer.from(row.payload.toString('utf8').replace('"kept":5000', '"kept":4999'));
    assert.notDeepEqual(edited, row.payload);
    putEntryRow(sandbox.store(), { ...row, payload: edited });
    try {
      await open(`#/runs/${encodeURIComponent(runs.kept)}`);
      await page.getByTestId('verify').locator('.badge.bad').waitFor();
      await shot(page, 'unverified');
      assert.equal(await page.getByTestId('run-status').innerText(), 'unverified');
      assert.match(await page.locator('h1').innerText(), /recorded as completed/);
      assert.equal(await page.locator('h1 .s-completed').count(), 0, 'no green "completed"');
      const marked = page.locator('ol.timeline > li[data-failing="true"]');
      await marked.first().waitFor(); // the timeline loads apart from the badge
      assert.equal(await marked.count(), 1);
      assert.equal(await marked.getAttribute('data-seq'), String(row.seq));
      assert.match(await marked.innerText(), /fails verification here/);
      assert.match(
        await page.getByTestId('blocked').innerText(),
        new RegExp(`fails verification at seq ${row.seq}`),
      );
      for (const name of ['Replay', 'Fork', 'Rerun', 'Pause', 'Cancel'])
        assert.equal(
          await page.getByRole('button', { name, exact: true }).isDisabled(),
          true,
          `${name} is offered`,
        );
      // What is disabled is what the API refuses.
      for (const [what, body] of [
        ['replay', {}],
        ['fork', { mode: 'replay', fromSeq: 1 }],
        ['rerun', {}],
      ] as const) {
        const r = await server.api('POST', `/api/runs/${runs.kept}/${what}`, { key: dana, body });
        assert.ok(r.status >= 400, `${what} answered ${r.status}`);
      }
    } finally {
      putEntryRow(sandbox.store(), row);
    }
    await page.getByRole('button', { name: 'Verify again' }).click();
    await page.getByTestId('verify').locator('.badge.good').waitFor();
    assert.match(await page.getByTestId('run-status').innerText(), /completed/);
    assert.equal(await page.getByRole('button', { name: 'Replay' }).isDisabled(), false);
    assert.equal(await page.locator('ol.timeline > li[data-failing]').count(), 0);
  });

  test('a TESTING version runs its tests from its page, and the gate is judged again', async () => {
    await open('#/workflows/keep-note');
    const gate = page.getByTestId('gate');
    await gate.waitFor();
    assert.match(await gate.innerText(), /Gate not met for v2 TESTING → SHADOW/);
    assert.match(
      await gate.locator('[data-condition="tests.pass"]').innerText(),
      /✗ .*keeps the note not run yet/,
    );
    await page.getByRole('button', { name: 'Run tests' }).click();
    const results = page.getByTestId('test-results');
    await results.waitFor();
    assert.match(await results.innerText(), /All 1 tests passed for v2/);
    assert.match(await results.innerText(), /✓ keeps the note completed/);
    await until('the gate judged again', async () =>
      /^✓ /.test(await gate.locator('[data-condition="tests.pass"]').innerText()),
    );
    assert.match(await gate.innerText(), /Gate met for v2 TESTING → SHADOW/);
    assert.equal(await page.getByRole('button', { name: 'Promote to SHADOW' }).isDisabled(), false);
  });

  test('a workflow’s page shows its own newest version, whatever was picked on another’s', async () => {
    await open('#/workflows/keep-note');
    await page.getByRole('button', { name: 'v2' }).click();
    await page.getByRole('heading', { name: /^v2 TESTING/ }).waitFor();
    // Straight from one workflow's page to another's (a link, the browser's back and forward).
    await page.evaluate("location.hash = '#/workflows/archive-file'");
    await page.getByRole('heading', { name: /^v1 LIVE/ }).waitFor();
    await settled(page);
    assert.equal(await page.getByRole('alert').count(), 0, await page.locator('main').innerText());
    assert.match(await page.locator('pre.yaml').innerText(), /id: archive-file/);
  });

  test('a scheduled workflow’s page shows its schedule with the next fire, and a plain one none', async () => {
    await open('#/workflows/weekly-archive');
    const schedules = page.getByTestId('schedules');
    await schedules.waitFor();
    const text = await schedules.innerText();
    assert.match(
      text,
      /v1 on schedule "0 9 \* \* 1" in Europe\/Berlin \(missed fires: skip\): next .+, last never fired/,
    );
    const next = await schedules.locator('time').first().getAttribute('datetime');
    assert.ok(next && Date.parse(next) > Date.now(), `the next fire ${next} is ahead`);
    assert.equal(new Date(next).getUTCDay(), 1, `${next} is a Monday`);
    await open('#/workflows/archive-file');
    await page.getByRole('heading', { name: /^v1 LIVE/ }).waitFor();
    await settled(page);
    assert.equal(await page.getByTestId('schedules').count(), 0);
  });

  test('long notes and reasons wrap within the page', async () => {
    await page.setViewportSize(PHONE);
    await open('#/workflows/keep-note');
    const reason = page.locator('ol.promotions .override');
    assert.match(await reason.innerText(), /reason-r{100}/);
    const box = (await reason.boundingBox())!;
    assert.ok(box.width <= PHONE.width, `the override reason is ${box.width} px wide`);
    await open(`#/runs/${encodeURIComponent(runs.denied)}`);
    const note = page.locator('ol.timeline > li.k-approval-resolved');
    assert.match(await note.innerText(), /dana@example\.com denied the proposal: note-n{100}/);
    assert.ok((await note.boundingBox())!.width <= PHONE.width);
    await assertFits('the denied run at 390');
    await page.setViewportSize(DESKTOP);
  });

  test('empty states read as written, with nothing escaped twice', async () => {
    const fresh = await context.newPage();
    watchErrors(fresh, pageErrors);
    await signIn(fresh, server.url, newcomer);
    await fresh.locator('.empty').waitFor();
    assert.equal(
      await fresh.locator('.empty').innerText(),
      'No runs yet — emit an event: npx keel emit <event.json>',
    );
    await fresh.goto(`${server.url}/console/#/workflows`);
    await fresh.getByText('No workflows yet').waitFor();
    assert.equal(
      await fresh.locator('.empty').innerText(),
      'No workflows yet — publish one: npx keel publish workflows/<spec>.yaml',
    );
    await fresh.goto(`${server.url}/console/#/approvals`);
    await fresh.getByText('Nothing waits for a person').waitFor();
    for (const text of [await fresh.locator('main').innerText()])
      assert.doesNotMatch(text, /&lt;|&gt;|&amp;/);
    await fresh.close();
  });

  test('a wait step is drawn in the flow, on the way between its steps and in a branch', async () => {
    const file = sandbox.write(
      'note-later-v1.yaml',
      `id: note-later
version: 1
status: DRAFT
triggers: [{event: note.later}]
steps:
  - {name: first, tool: keep_note, args: {text: "{{event.payload.text}}"}}
  - name: cool_off
    wait: {for: 15m}
  - name: route
    choose:
      - when: payload.text == "again"
        steps:
          - name: until_due
            wait: {until: "{{event.payload.due}}"}
  - {name: second, tool: keep_note, args: {text: "{{event.payload.text}}"}}
limits: {maxSteps: 3, maxCostUsd: 0}
`,
    );
    okJson(sandbox.keel(['--tools', PACK, '--tenant', 'acme', 'publish', file, '--json']));
    await open('#/workflows/note-later');
    const flow = page.getByLabel('Steps');
    await flow.waitFor();
    assert.deepEqual(
      await flow.locator(':scope > li').evaluateAll((els) => els.map((e) => e.className || 'tool')),
      ['trigger', 'tool', 'wait', 'choice', 'tool'],
    );
    assert.match(await flow.locator('li.wait[data-step="cool_off"]').innerText(), /cool_off\s+waits for 15m/);
    assert.match(
      await flow.locator('li.choice li.wait[data-step="until_due"]').innerText(),
      /until_due\s+waits until \{\{event\.payload\.due\}\}/,
    );
  });

  test('a parallel step is drawn with its branches side by side, each with its steps, and how they join', async () => {
    const file = sandbox.write(
      'note-both-v1.yaml',
      `id: note-both
version: 1
status: DRAFT
triggers: [{event: note.both}]
steps:
  - name: both
    parallel:
      join: first
      branches:
        left: [{name: left_note, tool: keep_note, args: {text: "{{event.payload.text}}"}}]
        right:
          - {name: right_note, tool: keep_note, args: {text: "{{event.payload.text}}"}}
          - {name: right_again, tool: keep_note, args: {text: "{{event.payload.text}}"}}
  - {name: after_both, tool: keep_note, args: {text: "{{event.payload.text}}"}}
limits: {maxSteps: 4, maxCostUsd: 0}
`,
    );
    okJson(sandbox.keel(['--tools', PACK, '--tenant', 'acme', 'publish', file, '--json']));
    await open('#/workflows/note-both');
    const flow = page.getByLabel('Steps');
    await flow.waitFor();
    assert.deepEqual(
      await flow.locator(':scope > li').evaluateAll((els) => els.map((e) => e.className || 'tool')),
      ['trigger', 'parallel', 'tool'],
    );
    const both = flow.locator('li.parallel[data-step="both"]');
    assert.match(await both.innerText(), /runs 2 branches at the same time, joins first/);
    assert.deepEqual(
      await both.locator('.lane').evaluateAll((els) => els.map((e) => e.getAttribute('data-branch'))),
      ['left', 'right'],
    );
    assert.equal(await both.locator('.lane[data-branch="right"] li').count(), 2);
  });

  test('a loop is drawn in the flow with its steps under it', async () => {
    const file = sandbox.write(
      'note-each-v1.yaml',
      `id: note-each
version: 1
status: DRAFT
triggers: [{event: note.each}]
steps:
  - {name: first, tool: keep_note, args: {text: "{{event.payload.text}}"}}
  - name: each_line
    forEach: {items: "{{event.payload.lines}}", as: line, max: 5}
    steps:
      - {name: line_note, tool: keep_note, args: {text: "{{line.text}}"}}
  - {name: second, tool: keep_note, args: {text: "{{event.payload.text}}"}}
limits: {maxSteps: 7, maxCostUsd: 0}
`,
    );
    okJson(sandbox.keel(['--tools', PACK, '--tenant', 'acme', 'publish', file, '--json']));
    await open('#/workflows/note-each');
    const flow = page.getByLabel('Steps');
    await flow.waitFor();
    assert.deepEqual(
      await flow.locator(':scope > li').evaluateAll((els) => els.map((e) => e.className || 'tool')),
      ['trigger', 'tool', 'loop', 'tool'],
    );
    assert.match(
      await flow.locator('li.loop[data-step="each_line"]').innerText(),
      /each_line\s+for each line of \{\{event\.payload\.lines\}\}, at most 5[\s\S]*line_note\s+keep_note/,
    );
  });

  test('no page threw or logged an error on the way', () => {
    assert.deepEqual(pageErrors, []);
  });
});
