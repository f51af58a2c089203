import assert from 'node:assert/strict';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { pino } from 'pino';
import { cliLogger, LOG_FLUSH_MS, REDACTED_FIELDS, redactFields } from './cli-logger.ts';

/** A destination keeping each line written, as written. */
function sink(): { lines: string[]; stream: NodeJS.WritableStream } {
  const lines: string[] = [];
  return { lines, stream: { write: (s: string) => lines.push(s) } as unknown as NodeJS.WritableStream };
}

/** pino's own `redact` over the same fields, top level and one level down: what redactFields replaced. */
function pinoRedacting(stream: NodeJS.WritableStream): pino.Logger {
  return pino(
    {
      base: { component: 'serve', pid: process.pid },
      level: 'info',
      timestamp: false,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...REDACTED_FIELDS, ...REDACTED_FIELDS.map((f) => `*.${f}`)], censor: '[redacted]' },
    },
    stream,
  );
}

const withoutTime = (line: string) => line.replace(/,"time":"[^"]*"/, '');

const keys = fc.constantFrom(...REDACTED_FIELDS, 'reqId', 'tenant', 'runIds', 'status', 'error', 'nested');
const leaf = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
);
const value = fc.oneof(
  leaf,
  fc.dictionary(keys, fc.oneof(leaf, fc.dictionary(keys, leaf, { maxKeys: 3 })), { maxKeys: 5 }),
);
const line = fc.dictionary(keys, value, { maxKeys: 8 });

test('a log line is what pino’s redact made of it: the same fields censored, at the top and one level down', () => {
  fc.assert(
    fc.property(line, (o) => {
      const ours = sink();
      const theirs = sink();
      cliLogger('serve', ours.stream).info(structuredClone(o), 'request');
      pinoRedacting(theirs.stream).info(structuredClone(o), 'request');
      assert.equal(withoutTime(ours.lines[0]!), theirs.lines[0]);
    }),
    { numRuns: 500 },
  );
});

test('redaction censors a copy: the object logged is left as it was', () => {
  const o = { reqId: 'r1', token: 't0ps3cret', nested: { key: 'k', ok: 1 }, runIds: ['a'] };
  const before = structuredClone(o);
  const out = redactFields(o);
  assert.deepEqual(o, before);
  assert.deepEqual(out, {
    reqId: 'r1',
    token: '[redacted]',
    nested: { key: '[redacted]', ok: 1 },
    runIds: ['a'],
  });
  const { lines, stream } = sink();
  cliLogger('serve', stream).info(o, 'request');
  assert.ok(!lines[0]!.includes('t0ps3cret'), lines[0]);
  assert.match(lines[0]!, /"token":"\[redacted\]","nested":\{"key":"\[redacted\]","ok":1\}/);
});

test('a line without any such field is logged as given, not copied', () => {
  const o = { reqId: 'r1', status: 200, nested: { ok: true } };
  assert.equal(redactFields(o), o);
});

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
    // The descriptor stays open: the shared buffer's timer flushes to it until the process exits.
    rmSync(dir, { recursive: true, force: true });
  }
});
