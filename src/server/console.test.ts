import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { consoleRoutes, pickEncoding } from './console.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-console-files-'));
after(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(join(dir, 'assets'));
const script = `${'export const line = "the console draws runs";\n'.repeat(400)}`;
writeFileSync(
  join(dir, 'index.html'),
  '<!doctype html><title>Keel</title><script src="assets/app.js"></script>',
);
writeFileSync(join(dir, 'assets', 'app.js'), script);
writeFileSync(join(dir, 'assets', 'tiny.css'), 'a{}');
const app = consoleRoutes(dir);
const get = (path: string, accept?: string) =>
  app.request(path, accept === undefined ? {} : { headers: { 'Accept-Encoding': accept } });

describe('console files', () => {
  test('sent brotli-compressed to a browser that takes brotli, and the bytes decode to the file', async () => {
    const res = await get('/console/assets/app.js', 'gzip, deflate, br, zstd');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-encoding'), 'br');
    assert.equal(res.headers.get('vary'), 'Accept-Encoding');
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    const body = Buffer.from(await res.arrayBuffer());
    assert.ok(body.length < script.length / 10, `${body.length} bytes for ${script.length}`);
    assert.equal(brotliDecompressSync(body).toString(), script);
  });

  test('gzip when brotli is not taken; the file as it is when nothing is', async () => {
    const gz = await get('/console/assets/app.js', 'gzip');
    assert.equal(gz.headers.get('content-encoding'), 'gzip');
    assert.equal(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString(), script);
    for (const accept of [undefined, 'identity', 'br;q=0, gzip;q=0']) {
      const plain = await get('/console/assets/app.js', accept);
      assert.equal(plain.headers.get('content-encoding'), null, String(accept));
      assert.equal(await plain.text(), script);
    }
  });

  test('a file compression would not shrink is sent as it is', async () => {
    const res = await get('/console/assets/tiny.css', 'br, gzip');
    assert.equal(res.headers.get('content-encoding'), null);
    assert.equal(await res.text(), 'a{}');
  });

  test('the encoding follows q-values and the wildcard', () => {
    const both = { br: Buffer.from('b'), gzip: Buffer.from('g') };
    assert.equal(pickEncoding('gzip;q=1, br;q=0', both), 'gzip');
    assert.equal(pickEncoding('*', both), 'br');
    assert.equal(pickEncoding('*;q=0, gzip', both), 'gzip');
    assert.equal(pickEncoding('GZIP;Q=0.5', both), 'gzip');
    assert.equal(pickEncoding('br;q=bogus', both), undefined);
    assert.equal(pickEncoding('br', { gzip: Buffer.from('g') }), undefined);
    assert.equal(pickEncoding('', both), undefined);
  });
});
