/**
 * Finding a run in the console, in real headless Chromium on a real `keel serve`, among 300 runs
 * six hours apart: the runs table has a subject column; the search box finds a subject's runs and a
 * run by the first hex digits of its id; "Jump to" a day shows the runs of that day and before,
 * newest first, and "Older" pages on from there; all of it fits a 390 px phone (the table scrolls
 * in its own box) and a desktop, and another tenant's key finds none of these runs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createKeel } from '../../src/app/index.ts';
import { launchChromium } from '../../src/testing/chromium.ts';
import { deploy, fakeSources } from '../../src/testing/index.ts';
import { countRequests, fitOf, settled, signIn, until, watchErrors } from '../helpers/console-browser.ts';
import { okJson, Sandbox } from '../helpers/keel-cli.ts';
import { KeelServer } from '../helpers/keel-server.ts';

const sandbox = new Sandbox('console-find');
let server: KeelServer;
let browser: Browser;
let dana: string;
let eve: string;
const pageErrors: string[] = [];
/** The runs made, oldest first: every 50th (from the 7th) is ACME-7's, the others T-<i>'s. */
const made: { runId: string; subject: string; createdAt: string }[] = [];
const RUNS = 300;

function key(tenant: string, subject: string): string {
  return okJson<{ key: string }>(
    sandbox.keel(['keys', 'create', '--tenant', tenant, '--subject', subject, '--human', '--json']),
  ).key;
}

before(async () => {
  // Filled in this process on a clock that moves six hours before each run: 75 days of runs.
  const sources = fakeSources({ start: Date.UTC(2026, 0, 1) });
  const k = createKeel({ store: sandbox.store(), sources });
  await deploy(
    k,
    'acme',
    'id: ticket-noted\nversion: 1\nstatus: LIVE\ntriggers: [{event: ticket.noted}]\nsteps: [{name: note, tool: core.noop}]\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
  );
  for (let i = 0; i < RUNS; i++) {
    sources.advance(6 * 3600_000);
    const subject = i % 50 === 7 ? 'ACME-7' : `T-${i}`;
    const r = await k.events.emit('acme', {
      id: `e-${i}`,
      type: 'ticket.noted',
      subject,
      time: '2026-01-01T00:00:00Z',
    });
    const runId = r.runs[0]!.runId;
    made.push({ runId, subject, createdAt: (await k.runs.get('acme', runId)).createdAt });
  }
  await k.close();
  dana = key('acme', 'dana');
  eve = key('globex', 'eve');
  server = await KeelServer.start(sandbox);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  sandbox.remove();
  assert.deepEqual(pageErrors, [], 'the console threw or logged errors');
});

/** The run ids the runs table shows, top to bottom. */
const shownRuns = (page: Page) =>
  page.locator('table.runs tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run')));

async function assertFits(page: Page, what: string) {
  const fit = await fitOf(page);
  assert.ok(
    fit.scroll <= fit.width,
    `${what}: the page is ${fit.scroll} px wide in a ${fit.width} px window`,
  );
  assert.deepEqual(fit.outside, [], `${what}: controls outside the ${fit.width} px window`);
}

for (const [name, viewport] of [
  ['phone', { width: 390, height: 844 }],
  ['desktop', { width: 1280, height: 800 }],
] as const) {
  describe(`find a run on a ${name} (${viewport.width} px)`, () => {
    let page: Page;
    before(async () => {
      const ctx = await browser.newContext({ viewport, timezoneId: 'UTC' });
      page = await ctx.newPage();
      watchErrors(page, pageErrors);
      countRequests(page);
      await signIn(page, `${server.url}/console`, dana);
      await page.goto(`${server.url}/console/#/runs`);
      await page.locator('table.runs tbody tr').first().waitFor();
      await settled(page);
    });

    test('the runs table has a subject column; a subject search finds its runs, newest first', async () => {
      const headers = await page.locator('table.runs thead th').allInnerTexts();
      assert.equal(headers[1], 'Subject');
      assert.deepEqual(
        await shownRuns(page),
        made
          .slice(-50)
          .reverse()
          .map((r) => r.runId),
      );
      await assertFits(page, 'the first page');
      const box = page.getByLabel('Find a run by subject or run id');
      await box.fill('ACME-7');
      await box.press('Enter');
      const acme7 = made
        .filter((r) => r.subject === 'ACME-7')
        .reverse()
        .map((r) => r.runId);
      await until(
        'the ACME-7 runs shown',
        async () => JSON.stringify(await shownRuns(page)) === JSON.stringify(acme7),
      );
      assert.equal(acme7.length, 6);
      assert.match(page.url(), /[#?&]q=ACME-7/);
      const subjects = await page.locator('table.runs tbody td.subject').allInnerTexts();
      assert.deepEqual(
        subjects,
        acme7.map(() => 'ACME-7'),
      );
      await assertFits(page, 'a subject search');
    });

    test('the first hex digits of a run id find that run', async () => {
      const target = made[123]!;
      const box = page.getByLabel('Find a run by subject or run id');
      await box.fill(target.runId.slice(7, 17));
      await page.getByRole('button', { name: 'Find' }).click();
      await until(
        'the one run shown',
        async () => JSON.stringify(await shownRuns(page)) === JSON.stringify([target.runId]),
      );
      assert.deepEqual(await page.locator('table.runs tbody td.subject').allInnerTexts(), [target.subject]);
    });

    test('jump to a day: the runs of that day and before, newest first; Older pages on', async () => {
      await page.getByLabel('Find a run by subject or run id').fill('');
      await page.getByRole('button', { name: 'Find' }).click();
      await page.getByLabel('Jump to').fill('2026-02-01');
      const before = made.filter((r) => r.createdAt < '2026-02-02T00:00:00.000Z').reverse();
      // Four runs a day from Jan 1 06:00 to Feb 1 18:00: 127 runs.
      assert.equal(before.length, 127);
      await until(
        () => `the runs before Feb 2 shown (${page.url()})`,
        async () => (await shownRuns(page))[0] === before[0]!.runId,
      );
      assert.deepEqual(
        await shownRuns(page),
        before.slice(0, 50).map((r) => r.runId),
      );
      assert.match(page.url(), /until=2026-02-02T00%3A00%3A00.000Z/);
      await assertFits(page, 'a jump to a date');
      await page.getByRole('button', { name: 'Older →' }).click();
      await until('the next page', async () => (await shownRuns(page))[0] === before[50]!.runId);
      assert.deepEqual(
        await shownRuns(page),
        before.slice(50, 100).map((r) => r.runId),
      );
    });
  });
}

test("another tenant's key finds none of these runs, by subject or by id", async () => {
  const bySubject = await server.api<{ runs: unknown[] }>('GET', '/api/runs?subject=ACME-7', { key: eve });
  assert.deepEqual([bySubject.status, bySubject.body.runs], [200, []]);
  const byId = await server.api<{ runs: unknown[] }>('GET', `/api/runs?runId=${made[5]!.runId}`, {
    key: eve,
  });
  assert.deepEqual([byId.status, byId.body.runs], [200, []]);
});
