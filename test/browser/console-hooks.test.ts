/**
 * The console's Hooks page in real headless Chromium on a real `keel serve --hooks`: it lists the
 * signed-in tenant's hooks (path, scheme and header, the variable holding the secret, limits, the
 * event mapping) and no other tenant's, never a secret, and fits a 390×844 phone and a 1280×800
 * desktop without scrolling sideways, the header's sections included, with a long mapping; below
 * them, the tenant's unrouted inbox (an event nobody took, with its reason).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../src/testing/chromium.ts';
import { countRequests, fitOf, settled, signIn } from '../helpers/console-browser.ts';
import { okJson, Sandbox } from '../helpers/keel-cli.ts';
import { KeelServer } from '../helpers/keel-server.ts';

const SECRET = 'console-hook-secret-4d2a';
const sandbox = new Sandbox('console-hooks');
const HOOKS = sandbox.write(
  'keel.hooks.yaml',
  `hooks:
  - name: helpdesk-refund-requests-from-the-support-desk-${'x'.repeat(8)}
    tenant: acme
    description: ${'refund requests from the helpdesk, '.repeat(6)}
    auth: { scheme: hmac-sha256-timestamped, header: X-Helpdesk-Signature-With-A-Long-Name, secret: "{{secret.HOOK_SECRET}}" }
    event:
      type: refund.requested
      id: "{{headers.x-delivery}}"
      time: "{{body.requested_at}}"
      payload: { note: "${'{{body.ticket.comments[0].text}} '.repeat(8)}" }
  - name: other
    tenant: globex
    auth: { scheme: shared-secret, header: X-Token, secret: "{{secret.HOOK_SECRET}}" }
    event: { type: t, id: "{{body.id}}", time: "{{body.t}}" }
`,
);
let server: KeelServer;
let browser: Browser;
let page: Page;
let key: string;

before(async () => {
  key = okJson<{ key: string }>(
    sandbox.keel(['keys', 'create', '--tenant', 'acme', '--subject', 'dana', '--human', '--json']),
  ).key;
  // An event nobody takes: kept in the unrouted inbox the page lists below the hooks.
  const event = sandbox.write(
    'nobody.json',
    JSON.stringify({ id: 'evt-nobody', type: 'nobody.wants', time: '2026-12-01T10:00:00Z', payload: {} }),
  );
  sandbox.keel(['emit', event, '--tenant', 'acme']);
  server = await KeelServer.start(sandbox, ['--hooks', HOOKS], sandbox.store(), { HOOK_SECRET: SECRET });
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  countRequests(page);
});
after(async () => {
  await browser?.close();
  await server?.stop();
  sandbox.remove();
});

test('the Hooks page lists the tenant’s hooks, never a secret, and fits a phone and a desktop', async () => {
  await signIn(page, server.url, key);
  for (const size of [
    { width: 390, height: 844 },
    { width: 1280, height: 800 },
  ]) {
    await page.setViewportSize(size);
    await page.goto(`${server.url}/console/#/hooks`);
    await page.locator('[data-testid="hook"]').first().waitFor();
    await settled(page);
    const text = await page.locator('main').innerText();
    assert.match(text, /POST \/hooks\/helpdesk-refund-requests/);
    assert.match(text, /secret from HOOK_SECRET/);
    assert.doesNotMatch(text, /\/hooks\/other/, 'another tenant’s hook is not shown');
    assert.doesNotMatch(await page.content(), new RegExp(SECRET));
    assert.equal(await page.locator('[data-testid="hook"]').count(), 1);
    // The unrouted inbox: the event nobody took, with its reason and a Redeliver button.
    const row = page.locator('[data-testid="unrouted"]');
    await row.first().waitFor();
    assert.equal(await row.count(), 1);
    assert.match(await row.innerText(), /evt-nobody[\s\S]*no_route/);
    const fit = await fitOf(page);
    assert.ok(fit.scroll <= fit.width, `${size.width} px: the page is ${fit.scroll} px wide`);
    assert.deepEqual(fit.outside, []);
  }
});
