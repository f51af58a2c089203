/**
 * The HTTP tools example, end to end with the real `keel` command: starts the fake shop API
 * (shop-api.ts) and a fake OpenAI-compatible model (fake-model.ts) on free loopback ports, points a
 * copy of tools.yaml at the shop and Keel's model provider at the model, then publishes
 * refund-order.yaml and runs it (a GET of the order, a POST of the refund with the step's
 * idempotency key, a note whose text the model writes into its slot), prints its history, replays
 * it, and shows what the shop and the model saw: one call per step, none for the replay. The token
 * and the model key are made here and handed to Keel in SHOP_TOKEN and OPENAI_API_KEY only.
 *
 *   node --import tsx examples/http-tools/demo.ts
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeModel } from './fake-model.ts';
import { startShopApi } from './shop-api.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
/** The origin tools.yaml is written for; the copy the demo uses names the fake's. */
const WRITTEN_FOR = 'http://127.0.0.1:4411';

/** `node` arguments that run `keel`: the sources through tsx, or the build beside this file. */
function keelCommand(): string[] {
  if (import.meta.url.endsWith('.ts'))
    return ['--import', import.meta.resolve('tsx'), join(HERE, '..', '..', 'src', 'cli', 'keel-command.ts')];
  return [join(HERE, '..', '..', 'src', 'cli', 'keel-command.js')];
}

async function main(): Promise<void> {
  const token = `demo-${randomBytes(12).toString('hex')}`;
  const shop = await startShopApi(token);
  const modelKey = `sk-demo-${randomBytes(12).toString('hex')}`;
  const model = await startFakeModel(modelKey);
  const dir = mkdtempSync(join(tmpdir(), 'keel-http-tools-demo-'));
  try {
    const tools = join(dir, 'tools.yaml');
    writeFileSync(tools, readFileSync(join(HERE, 'tools.yaml'), 'utf8').replaceAll(WRITTEN_FOR, shop.origin));
    const env = {
      ...process.env,
      SHOP_TOKEN: token,
      KEEL_MODEL_PROVIDER: 'openai',
      KEEL_MODEL: 'demo-model',
      KEEL_MODEL_BASE_URL: model.baseUrl,
      KEEL_MODEL_PRICE: '0.15,0.60',
      OPENAI_API_KEY: modelKey,
      NO_COLOR: '1',
    };
    // Asynchronously: the fake shop answers from this process while keel runs.
    const keel = (...args: string[]) =>
      new Promise<string>((resolve, reject) => {
        process.stdout.write(`\n$ keel ${args.join(' ')}\n`);
        execFile(
          process.execPath,
          [...keelCommand(), '--store', join(dir, 'keel.db'), '--tools', tools, ...args],
          { env, encoding: 'utf8', timeout: 60_000 },
          (e, stdout, stderr) => {
            process.stdout.write(stdout);
            if (e) reject(new Error(`keel ${args[0]} failed: ${stderr || e.message}`));
            else resolve(stdout);
          },
        );
      });
    process.stdout.write(`fake shop API on ${shop.origin}, fake model at ${model.baseUrl}\n`);
    await keel('publish', join(HERE, 'refund-order.yaml'));
    const run = JSON.parse(
      await keel('--json', 'run', 'refund-order', join(HERE, 'events', 'order-7.json'), '--live', '--yes'),
    ) as {
      runId: string;
      status: string;
    };
    if (run.status !== 'completed') throw new Error(`the run is ${run.status}`);
    await keel('history', run.runId);
    const seen = { ...shop.calls };
    const asked = model.calls;
    await keel('replay', run.runId);
    const replayCalls =
      Object.values(shop.calls).reduce((a, b) => a + b, 0) - Object.values(seen).reduce((a, b) => a + b, 0);
    process.stdout.write(
      `\nthe shop saw: ${shop.calls['GET /orders'] ?? 0} order lookup, ${shop.calls['POST /refunds'] ?? 0} refund (${shop.refunds.size} made), ${shop.calls['POST /notes'] ?? 0} note (${[...shop.notes.values()].map((n) => JSON.stringify(n.text)).join(', ')}); the model was asked ${asked} time(s); the replay made ${replayCalls} calls and asked the model ${model.calls - asked} times\n`,
    );
  } finally {
    await shop.close();
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
