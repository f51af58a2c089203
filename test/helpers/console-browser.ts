/**
 * Driving the console in real Chromium (test/browser/): waiting on a condition, collecting what a
 * page throws or logs as an error, signing in, and measuring a page against its window: whether
 * the page is wider than the window, which controls lie outside it, and where each character of a
 * text is drawn (to tell a reversed run of text from one in its written order).
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';

/** Polls `f` every 50 ms until it holds, or throws after `ms` naming `what`. */
export async function until(
  what: string | (() => string),
  f: () => Promise<boolean> | boolean,
  ms = 10_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > deadline)
      throw new Error(`still not ${typeof what === 'string' ? what : what()} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Collects into `errors` what `page` throws and the errors it logs. The refusals tests provoke (a
 * wrong key, another tenant's run, a decision already made, an action on a run that fails
 * verification) are logged by Chromium as failed loads; anything else is the console's own error.
 */
export function watchErrors(page: Page, errors: string[], expected = /status of 40[149] /): void {
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error' && !expected.test(m.text())) errors.push(m.text());
  });
}

/**
 * With KEEL_SCREENSHOTS=<dir>, saves the page there as console-<name>.png (docs/console-*.png are
 * made this way: `KEEL_SCREENSHOTS=docs node --import tsx --test test/browser/console*.test.ts`).
 */
export async function shot(p: Page, name: string): Promise<void> {
  const dir = process.env.KEEL_SCREENSHOTS;
  if (dir) await p.screenshot({ path: join(dir, `console-${name}.png`), fullPage: false });
}

const inFlight = new WeakMap<Page, { n: number; quietSince: number }>();

/** Counts `page`'s requests under way, for `settled`; call once, before the page loads anything. */
export function countRequests(page: Page): void {
  const c = { n: 0, quietSince: Date.now() };
  inFlight.set(page, c);
  page.on('request', () => {
    c.n++;
  });
  const done = () => {
    c.n--;
    if (c.n === 0) c.quietSince = Date.now();
  };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
}

/**
 * Waits until the page has drawn what it read: nothing marked as loading (`.loading`), and no
 * request under way for `quietMs` (a change of the fragment loads no document, so the browser's
 * own load states say nothing about the reads it starts).
 */
export async function settled(page: Page, quietMs = 300): Promise<void> {
  const c = inFlight.get(page);
  if (!c) throw new Error('settled: countRequests(page) first');
  await until('settled', async () => {
    if (c.n > 0 || Date.now() - c.quietSince < quietMs) return false;
    return (await page.locator('.loading').count()) === 0;
  });
}

export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('header .who').waitFor();
}

export interface Fit {
  /** The page's width and the window's: the page fits when scroll <= width. */
  readonly scroll: number;
  readonly width: number;
  /** Each shown control (button, input, select, textarea) reaching outside the window, described. */
  readonly outside: readonly string[];
}

/** How `page` fits its window now (page code as text: tests are type-checked without a DOM). */
export function fitOf(page: Page): Promise<Fit> {
  return page.evaluate(`(() => {
    const width = innerWidth;
    const outside = [];
    for (const el of document.querySelectorAll('button, input, select, textarea')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue; // not shown (a closed <details>)
      if (r.left < -0.5 || r.right > width + 0.5)
        outside.push(el.tagName.toLowerCase() + ' "' + (el.innerText || el.getAttribute('aria-label') || el.name || '').slice(0, 40) + '" spans x ' + Math.round(r.left) + '..' + Math.round(r.right));
    }
    return { scroll: document.documentElement.scrollWidth, width, outside };
  })()`);
}

/**
 * Where each character of the first occurrence of `text` under `selector` is drawn: the left
 * edges, in the order the characters are written, or null when the text is not there. Written
 * order drawn left to right gives increasing edges; a run reversed by a direction override does
 * not.
 */
export function drawnLefts(page: Page, selector: string, text: string): Promise<number[] | null> {
  return page.evaluate(`(() => {
    const root = document.querySelector(${JSON.stringify(selector)});
    if (!root) return null;
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const text = ${JSON.stringify(text)};
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      const at = node.data.indexOf(text);
      if (at < 0) continue;
      const lefts = [];
      for (let k = 0; k < text.length; k++) {
        const r = document.createRange();
        r.setStart(node, at + k);
        r.setEnd(node, at + k + 1);
        lefts.push(r.getBoundingClientRect().left);
      }
      return lefts;
    }
    return null;
  })()`);
}

/** Whether `lefts` increase strictly: the characters are drawn in the order they are written. */
export const inWrittenOrder = (lefts: readonly number[]) =>
  lefts.every((x, i) => i === 0 || x > lefts[i - 1]!);
