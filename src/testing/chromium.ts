/**
 * Real headless Chromium for the console's tests and bench, driven by playwright-core: Debian's
 * `chromium` package (`apt-get install -y chromium`, which .ci/run does when it is missing), never
 * a browser build downloaded by playwright. Launched with the flags that keep it from reaching the
 * network on its own (no updates, sync or background requests).
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = process.env.KEEL_CHROMIUM ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's package (apt-get update && apt-get install -y chromium) or set KEEL_CHROMIUM`,
    );
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-dev-shm-usage',
    ],
  });
}
