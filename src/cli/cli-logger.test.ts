/**
 * The serve/worker logger: lines reach the descriptor within LOG_FLUSH_MS, and loggers sharing a
 * descriptor share one buffer (one timer, one exit flush), so their lines keep their order.
 */
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { cliLogger, LOG_FLUSH_MS } from './cli-logger.ts';

test('two loggers on one descriptor share one buffer: one exit flush, lines in order, written within LOG_FLUSH_MS', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'keel-log-'));
  const file = join(dir, 'log');
  const fd = openSync(file, 'a');
  try {
    const before = process.listenerCount('exit');
    const serve = cliLogger('serve', fd);
    const worker = cliLogger('worker', fd);
    assert.equal(process.listenerCount('exit'), before + 1);
    serve.info({ requestId: 'r1' }, 'first');
    worker.info({ workerId: 'w1' }, 'second');
    serve.info({ authorization: 'Bearer sk_live_x' }, 'third');
    await sleep(LOG_FLUSH_MS * 4);
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => [l.component, l.msg]),
      [
        ['serve', 'first'],
        ['worker', 'second'],
        ['serve', 'third'],
      ],
    );
    assert.equal(lines[2].authorization, '[redacted]');
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
});
