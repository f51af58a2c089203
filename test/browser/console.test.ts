/**
 * The operator console in real headless Chromium, against a real `keel serve` process on a SQLite
 * store with the support desk's tools (the helpdesk's own tables are the witness of what ran):
 * sign in; a destructive step waits in the inbox, is approved in the browser and the run completes;
 * a denial stops its run; a decision someone else made meanwhile names who made it; the inbox
 * count follows approvals made elsewhere; replay says identical; a tampered ledger turns the badge
 * red naming the seq; another tenant's key sees none of it; the key never appears in a URL.
 *
 * The tests in this file build on each other, in order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../../src/testing/chromium.ts';
import { shot, signIn, until, watchErrors } from '../helpers/console-browser.ts';
import { exampleSpec, okJson, Sandbox, supportDesk } from '../helpers/keel-cli.ts';
import { KeelServer } from '../helpers/keel-server.ts';
import { putAtStatus } from '../helpers/lifecycle.ts';
import { entryRows, HelpdeskFile, putEntryRow } from '../helpers/sqlite-files.ts';

const sandbox = new Sandbox('console', { supportDesk: true });
const helpdesk = new HelpdeskFile(sandbox.helpdesk());
let server: KeelServer;
let browser: Browser;
let dana: string; // a person of acme
let erin: string; // another person of acme
let eve: string; // globex
/** Every URL any page asked for, and the /api requests' Authorization headers. */
const requested: string[] = [];
const authHeaders: (string | undefined)[] = [];
/** Every API call the console made, as `method path`. */
const apiCalls = new Set<string>();
/** Uncaught errors and console errors of any page: the console must have none. */
const pageErrors: string[] = [];

function key(tenant: string, subject: string): string {
  return okJson<{ key: string }>(
    sandbox.keel(['keys', 'create', '--tenant', tenant, '--subject', subject, '--human', '--json']),
  ).key;
}

async function emit(subject: string, type = 'ticket.resolved', payload: Record<string, unknown> = {}) {
  const r = await server.api<{ runs: { runId: string; status: string }[] }>('POST', '/api/events', {
    key: dana,
    body: { id: `evt-${type}-${subject}`, type, subject, time: '2026-11-30T09:15:00Z', payload },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.runs[0]!.runId;
}

async function runStatus(runId: string, k = dana): Promise<string> {
  const r = await server.api<{ status: string }>('GET', `/api/runs/${runId}`, { key: k });
  return r.body.status;
}

/** Waits until the header's count of pending approvals reads `n`. */
async function inboxCount(p: Page, n: number): Promise<void> {
  let seen = '';
  await until(
    () => `${n} pending (the header says ${JSON.stringify(seen)})`,
    async () => {
      seen = await p.getByTestId('inbox-count').innerText();
      return seen === String(n);
    },
  );
}

async function openPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  watchErrors(page, pageErrors);
  page.on('request', (req) => {
    requested.push(req.url());
    const path = new URL(req.url()).pathname;
    if (path.startsWith('/api/')) {
      authHeaders.push(req.headers().authorization);
      apiCalls.add(`${req.method().toLowerCase()} ${decodeURIComponent(path)}`);
    }
  });
  return page;
}

let approveRun: string;
let denyRun: string;
let acme: BrowserContext;
let page: Page;

before(async () => {
  okJson(sandbox.keel(['--tenant', 'acme', 'publish', exampleSpec('close-resolved-ticket'), '--json']));
  await putAtStatus(sandbox.store(), 'acme', 'close-resolved-ticket', 'LIVE');
  dana = key('acme', 'dana');
  erin = key('acme', 'erin');
  eve = key('globex', 'eve');
  const desk = supportDesk(sandbox.helpdesk());
  server = await KeelServer.start(sandbox, desk.args, sandbox.store(), desk.env);
  approveRun = await emit('T-1004', 'ticket.resolved', { resolution: 'Replacement arrived.' });
  denyRun = await emit('T-1005', 'ticket.resolved', { resolution: 'Customer says it works.' });
  await until('waiting', async () => (await runStatus(denyRun)) === 'waiting_approval');
  browser = await launchChromium();
  acme = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await openPage(acme);
});

after(async () => {
  await browser?.close();
  await server?.stop();
  sandbox.remove();
});

describe('the console', { timeout: 120_000 }, () => {
  test('/ leads to the console, which loads nothing from outside this server', async () => {
    const res = await fetch(`${server.url}/`, { redirect: 'manual' });
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), '/console/');
    const html = await fetch(`${server.url}/console/`);
    assert.equal(html.status, 200);
    assert.match(html.headers.get('content-security-policy') ?? '', /default-src 'none'.*connect-src 'self'/);
    assert.doesNotMatch(await html.text(), /https?:\/\//);
  });

  test('a wrong key is refused with the API’s message; the right one signs in to its tenant', async () => {
    await page.goto(`${server.url}/`);
    await page
      .getByLabel('API key')
      .fill('keel_not-a-key')
      .catch((e) => {
        throw new Error(`${e}\n${pageErrors.join('\n')}`);
      });
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').innerText(), /unauthorized|key/i);
    // By keyboard: the key field has the focus, Enter signs in.
    await page.getByLabel('API key').fill('');
    await page.keyboard.type(dana);
    await page.keyboard.press('Enter');
    await page.locator('header .who').waitFor();
    assert.match(await page.locator('header .who').innerText(), /tenant acme/);
    await page.locator('table.runs tbody tr').first().waitFor();
    assert.equal(await page.locator('table.runs tbody tr').count(), 2);
    await inboxCount(page, 2);
  });

  test('a destructive step waits in the inbox, is approved in the browser, and its run completes', async () => {
    await page.getByRole('link', { name: /Approvals/ }).click();
    const card = page.locator(`li.approval[data-run="${approveRun}"]`);
    await card.waitFor();
    assert.match(await card.innerText(), /close_ticket/);
    assert.match(await card.innerText(), /T-1004/);
    assert.match(await card.locator('.why').innerText(), /destructive/i);
    assert.equal(helpdesk.calls('close_ticket'), 0);
    await shot(page, 'inbox');
    await card.getByLabel('Note').fill('checked with the customer');
    await card.getByRole('button', { name: 'Approve' }).click();
    await card.locator('.decided').waitFor();
    assert.match(await card.locator('.decided').innerText(), /Approved by dana/);
    await until('completed', async () => (await runStatus(approveRun)) === 'completed');
    assert.equal(helpdesk.calls('close_ticket'), 1);
    assert.equal(helpdesk.ticket('T-1004').status, 'closed');
    const history = await server.api<{ history: { text: string }[] }>(
      'GET',
      `/api/runs/${approveRun}/history`,
      {
        key: dana,
      },
    );
    assert.match(JSON.stringify(history.body.history), /dana/);
  });

  test('a denial in the browser stops its run, and nothing is closed', async () => {
    const card = page.locator(`li.approval[data-run="${denyRun}"]`);
    await card.getByRole('button', { name: 'Deny' }).click();
    await card.locator('.decided').waitFor();
    assert.match(await card.locator('.decided').innerText(), /Denied by dana/);
    await until('refused', async () => (await runStatus(denyRun)) === 'refused');
    assert.equal(helpdesk.calls('close_ticket'), 1);
    assert.equal(helpdesk.ticket('T-1005').status, 'open');
  });

  test('approvals made elsewhere appear, and one resolved meanwhile names who resolved it', async () => {
    await inboxCount(page, 0);
    const run = await emit('T-1003', 'ticket.resolved', { resolution: 'Fixed.' });
    await inboxCount(page, 1);
    const card = page.locator(`li.approval[data-run="${run}"]`);
    await card.waitFor();
    const byErin = await server.api('POST', `/api/runs/${run}/approve`, { key: erin, body: {} });
    assert.equal(byErin.status, 200, JSON.stringify(byErin.body));
    await card.getByRole('button', { name: 'Approve' }).click();
    await card.locator('.decided').waitFor();
    assert.match(await card.locator('.decided').innerText(), /Already resolved by erin/);
    await until('completed', async () => (await runStatus(run)) === 'completed');
    assert.equal(helpdesk.calls('close_ticket'), 2);
  });

  test('a run page: its timeline, a green badge, replay identical; after tampering the badge is red at the seq', async () => {
    await page.goto(`${server.url}/console/#/runs/${encodeURIComponent(approveRun)}`);
    const badge = page.getByTestId('verify').locator('.badge');
    await page.getByTestId('verify').locator('.badge.good').waitFor();
    const entries = entryRows(sandbox.store(), approveRun);
    assert.match(await badge.innerText(), new RegExp(`chain intact, ${entries.length} entries`));
    // The timeline loads apart from the badge: wait for its last entry before counting.
    await page.locator(`ol.timeline > li[data-seq="${entries.at(-1)!.seq}"]`).waitFor();
    assert.equal(await page.locator('ol.timeline > li').count(), entries.length);
    await page.locator('ol.timeline > li[data-seq="1"] summary').click();
    assert.match(
      await page.locator('ol.timeline > li[data-seq="1"] dl.entry').innerText(),
      new RegExp(entries[1]!.hash),
    );
    await page.getByRole('button', { name: 'Replay' }).click();
    await page.getByText(/Replay: identical/).waitFor();
    await shot(page, 'run');

    // The first entry after the root that names the ticket: its payload edited, its hashes kept.
    const row = entries.find((e) => e.seq > 0 && e.payload.toString('utf8').includes('T-1004'))!;
    const edited = Buffer.from(row.payload.toString('utf8').replace('T-1004', 'T-1002'));
    putEntryRow(sandbox.store(), { ...row, payload: edited });
    await page.getByRole('button', { name: 'Verify again' }).click();
    await page.getByTestId('verify').locator('.badge.bad').waitFor();
    assert.equal(await badge.getAttribute('data-seq'), String(row.seq));
    assert.match(await badge.innerText(), new RegExp(`fails verification at seq ${row.seq}`));
    putEntryRow(sandbox.store(), row);
  });

  test('a workflow: its versions, its steps with the destructive one marked, and a gated promotion with an override', async () => {
    await page.goto(`${server.url}/console/#/workflows/close-resolved-ticket`);
    await page.locator('table.versions tbody tr').first().waitFor();
    assert.match(await page.locator('table.versions').innerText(), /v1\s+LIVE/);
    assert.match(await page.locator('ol.flow li.destructive').innerText(), /close_ticket/);
    assert.equal(await page.locator('ol.flow li.destructive').count(), 1);
    assert.match(await page.locator('pre.yaml').innerText(), /tool: close_ticket/);
    // The version read back in plain words (GET .../explain), its risk set apart.
    const explain = page.getByTestId('explain');
    await explain.waitFor();
    assert.match(await explain.innerText(), /When a ticket is resolved/);
    assert.match(
      await page.getByTestId('risks').innerText(),
      /close \(close_ticket\) is destructive: it waits for a person's approval/,
    );
    const gate = page.getByTestId('gate');
    await gate.waitFor();
    assert.match(await gate.innerText(), /Gate not met for v1 LIVE → AUTONOMOUS/);
    assert.match(await gate.innerText(), /denied/i);
    const promote = page.getByRole('button', { name: 'Promote to AUTONOMOUS' });
    assert.equal(await promote.isDisabled(), true, 'an unmet gate needs a reason first');
    await page.getByLabel('Override reason').fill('the denial was a test; signed off by ops');
    const asked: string[] = [];
    page.once('dialog', async (d) => {
      asked.push(d.message());
      await d.accept();
    });
    await promote.click();
    await until('promoted', async () =>
      (await page.locator('table.versions').innerText()).includes('AUTONOMOUS'),
    );
    assert.match(asked[0] ?? '', /from LIVE to AUTONOMOUS although its gate is not met/);
    const records = await server.api<{
      promotions: { to: string; by: string; override?: { reason: string } }[];
    }>('GET', '/api/workflows/close-resolved-ticket/versions', { key: dana });
    const last = records.body.promotions.at(-1)!;
    assert.equal(last.to, 'AUTONOMOUS');
    assert.equal(last.by, 'dana');
    assert.equal(last.override?.reason, 'the denial was a test; signed off by ops');
    assert.match(await page.locator('ol.promotions').innerText(), /LIVE → AUTONOMOUS by dana/);
  });

  test('a request in plain words: questions first, then a read-back, published as DRAFT only once confirmed', async () => {
    const versions = async () =>
      (
        await server.api<{ versions: { workflowId: string; status: string; specHash: string }[] }>(
          'GET',
          '/api/workflows',
          { key: dana },
        )
      ).body.versions.filter((v) => v.workflowId === 'ticket-escalated-tag-close');
    await page.getByRole('link', { name: 'New workflow' }).click();
    await page.getByLabel('Request').fill('Tag the ticket "urgent", then close it.');
    await page.locator('details summary').click();
    await page
      .getByLabel('Sample events', { exact: true })
      .fill('{"type": "ticket.escalated", "payload": {"level": 2');
    await page.getByRole('button', { name: 'Draft' }).click();
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').innerText(), /Sample events: not JSON/);
    // Two events could start it, and the request names neither: the draft asks which.
    await page
      .getByLabel('Sample events', { exact: true })
      .fill(
        '[{"type": "ticket.escalated", "payload": {"level": 2}}, {"type": "ticket.reopened", "payload": {"level": 1}}]',
      );
    await page.getByRole('button', { name: 'Draft' }).click();
    const questions = page.getByTestId('questions');
    await questions.waitFor();
    assert.match(await questions.innerText(), /Which event starts this workflow\?.*ticket\.escalated/);
    assert.equal(await page.getByRole('button', { name: 'Publish as DRAFT' }).count(), 0);
    await shot(page, 'draft-questions');

    await page.getByLabel('Request').fill('When a ticket is escalated, tag it "urgent" and then close it.');
    assert.equal(await page.getByTestId('draft').count(), 0, 'an edited request clears the draft shown');
    await page.getByRole('button', { name: 'Draft' }).click();
    const explain = page.getByTestId('explain');
    await explain.waitFor();
    assert.match(await explain.innerText(), /When a ticket is escalated\./);
    assert.match(await explain.innerText(), /1\. tag \(tag_ticket\).*with tag = "urgent"/);
    assert.match(await page.getByTestId('risks').innerText(), /close \(close_ticket\) is destructive/);
    assert.match(await page.getByLabel('Draft spec').innerText(), /status: DRAFT/);
    await shot(page, 'draft');
    assert.deepEqual(await versions(), [], 'a draft is not published before it is confirmed');

    const publish = page.getByRole('button', { name: 'Publish as DRAFT' });
    const asked: string[] = [];
    page.once('dialog', async (d) => {
      asked.push(d.message());
      await d.dismiss();
    });
    await publish.click();
    await until('asked', () => asked.length === 1);
    assert.match(asked[0]!, /Publish ticket-escalated-tag-close v1 as DRAFT\?/);
    assert.deepEqual(await versions(), [], 'dismissing the question publishes nothing');
    page.once('dialog', (d) => d.accept());
    await publish.click();
    const done = page.getByTestId('published');
    await done.waitFor();
    assert.match(await done.innerText(), /Published: ticket-escalated-tag-close v1 as DRAFT/);
    const [v] = await versions();
    assert.equal(v?.status, 'DRAFT');
    await done.getByRole('link').click();
    await page.getByTestId('explain').waitFor();
    assert.match(await page.locator('table.versions').innerText(), /v1\s+DRAFT/);
  });

  test('another tenant’s key sees none of the first tenant’s runs or approvals', async () => {
    const globex = await browser.newContext();
    const other = await openPage(globex);
    await signIn(other, server.url, eve);
    assert.match(await other.locator('header .who').innerText(), /tenant globex/);
    await other.locator('.empty').waitFor();
    assert.match(await other.locator('.empty').innerText(), /No runs yet/);
    assert.equal(await other.getByTestId('inbox-count').innerText(), '0');
    await other.goto(`${server.url}/console/#/runs/${encodeURIComponent(approveRun)}`);
    await other.getByRole('alert').waitFor();
    assert.match(await other.getByRole('alert').innerText(), /not found/i);
    assert.doesNotMatch(await other.content(), /T-1004/);
    await globex.close();
  });

  test('the key travels only in the Authorization header and stays in this tab’s session', async () => {
    assert.ok(requested.length > 20, `only ${requested.length} requests seen`);
    for (const k of [dana, eve]) {
      for (const url of requested) assert.ok(!url.includes(k) && !url.includes(encodeURIComponent(k)), url);
    }
    assert.ok(authHeaders.length > 10);
    for (const h of authHeaders) assert.match(h ?? '', /^Bearer keel_/);
    // Page code as text: this file is type-checked for Node, which has no DOM.
    assert.equal(await page.evaluate('localStorage.length'), 0);
    assert.equal(await page.evaluate("sessionStorage.getItem('keel.apiKey')"), dana);
    assert.doesNotMatch(page.url(), new RegExp(dana));
    assert.ok(!server.stderr.includes(dana), 'the key is in the server log');
  });

  test('every call the console made is a route of the OpenAPI document', async () => {
    const doc = (await fetch(`${server.url}/openapi.json`).then((r) => r.json())) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => ({
        method,
        path,
        re: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
      })),
    );
    assert.ok(apiCalls.size >= 15, [...apiCalls].join('\n'));
    for (const call of apiCalls) {
      const [method, path] = call.split(' ') as [string, string];
      assert.ok(
        routes.some((r) => r.method === method && r.re.test(path)),
        `${call} is not in /openapi.json`,
      );
    }
  });

  test('no page threw or logged an error on the way', () => {
    assert.deepEqual(pageErrors, []);
  });
});
