/**
 * Each authentication scheme of a hook, checked against signatures written here from the senders'
 * documented forms (not by `signDelivery`): a good delivery passes; a tampered body, a wrong
 * secret, a missing or malformed header, and (timestamped) a stale or future timestamp are each
 * refused with their own reason. `signDelivery` agrees with the documented forms.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { HookAuth } from './hook-spec.ts';
import { signDelivery, verifyDelivery } from './verify-delivery.ts';

const SECRET = 'whsec_test_0123456789abcdef';
const body = Buffer.from('{"id":"evt_1","type":"charge.refunded","created":1764900000}');
const NOW = 1_764_900_000;

/** A payment provider's documented scheme: `t=<ts>,v1=<hex HMAC-SHA256 of "<ts>.<body>">`. */
const stripeHeader = (secret: string, b: Buffer, t: number) =>
  `t=${t},v1=${createHmac('sha256', secret)
    .update(`${t}.${b.toString('utf8')}`)
    .digest('hex')}`;
/** A code host's documented scheme: `sha256=<hex HMAC-SHA256 of the body>`. */
const githubHeader = (secret: string, b: Buffer) =>
  `sha256=${createHmac('sha256', secret).update(b).digest('hex')}`;

const timestamped: HookAuth = {
  scheme: 'hmac-sha256-timestamped',
  header: 'Stripe-Signature',
  secret: 'S',
  toleranceSeconds: 300,
};
const hex: HookAuth = {
  scheme: 'hmac-sha256',
  header: 'X-Hub-Signature-256',
  secret: 'S',
  encoding: 'hex',
  prefix: 'sha256=',
};
const b64: HookAuth = {
  scheme: 'hmac-sha256',
  header: 'X-Shopify-Hmac-Sha256',
  secret: 'S',
  encoding: 'base64',
  prefix: '',
};
const shared: HookAuth = { scheme: 'shared-secret', header: 'X-Gitlab-Token', secret: 'S' };

const reason = (r: ReturnType<typeof verifyDelivery>) => (r.ok ? 'ok' : r.reason);

describe('hmac-sha256-timestamped (t=,v1=)', () => {
  test('a good delivery passes and says when it was signed', () => {
    const r = verifyDelivery(timestamped, SECRET, body, stripeHeader(SECRET, body, NOW - 10), NOW);
    assert.deepEqual(r, { ok: true, timestamp: NOW - 10 });
    assert.equal(signDelivery(timestamped, SECRET, body, NOW), stripeHeader(SECRET, body, NOW));
  });
  test('several v1 signatures (a secret being rolled): any one matching passes', () => {
    const h = `${stripeHeader('old-secret', body, NOW)},v1=${stripeHeader(SECRET, body, NOW).split('v1=')[1]},v0=abc`;
    assert.equal(reason(verifyDelivery(timestamped, SECRET, body, h, NOW)), 'ok');
  });
  test('a tampered body, a wrong secret, a re-stamped t are each signature_mismatch', () => {
    const tampered = Buffer.from(body.toString().replace('evt_1', 'evt_2'));
    assert.equal(
      reason(verifyDelivery(timestamped, SECRET, tampered, stripeHeader(SECRET, body, NOW), NOW)),
      'signature_mismatch',
    );
    assert.equal(
      reason(verifyDelivery(timestamped, SECRET, body, stripeHeader('wrong', body, NOW), NOW)),
      'signature_mismatch',
    );
    const restamped = stripeHeader(SECRET, body, NOW - 1000).replace(`t=${NOW - 1000}`, `t=${NOW}`);
    assert.equal(reason(verifyDelivery(timestamped, SECRET, body, restamped, NOW)), 'signature_mismatch');
  });
  test('a stale timestamp (a replayed delivery) and a future one are refused; the window edge passes', () => {
    assert.equal(
      reason(verifyDelivery(timestamped, SECRET, body, stripeHeader(SECRET, body, NOW - 301), NOW)),
      'timestamp_stale',
    );
    assert.equal(
      reason(verifyDelivery(timestamped, SECRET, body, stripeHeader(SECRET, body, NOW + 301), NOW)),
      'timestamp_future',
    );
    assert.equal(
      reason(verifyDelivery(timestamped, SECRET, body, stripeHeader(SECRET, body, NOW - 300), NOW)),
      'ok',
    );
    assert.equal(
      reason(verifyDelivery(timestamped, SECRET, body, stripeHeader(SECRET, body, NOW + 300), NOW)),
      'ok',
    );
  });
  test('a missing header, one without v1 and one without t are refused, never thrown', () => {
    assert.equal(reason(verifyDelivery(timestamped, SECRET, body, undefined, NOW)), 'signature_missing');
    assert.equal(reason(verifyDelivery(timestamped, SECRET, body, '  ', NOW)), 'signature_missing');
    assert.equal(reason(verifyDelivery(timestamped, SECRET, body, `t=${NOW}`, NOW)), 'signature_missing');
    assert.equal(
      reason(verifyDelivery(timestamped, SECRET, body, `v1=${'a'.repeat(64)}`, NOW)),
      'signature_malformed',
    );
    assert.equal(
      reason(verifyDelivery(timestamped, SECRET, body, `t=soon,v1=${'a'.repeat(64)}`, NOW)),
      'signature_malformed',
    );
    // A short or non-hex v1 is no candidate at all.
    assert.equal(
      reason(verifyDelivery(timestamped, SECRET, body, `t=${NOW},v1=abcd`, NOW)),
      'signature_missing',
    );
  });
});

describe('hmac-sha256 (hex with a prefix, base64)', () => {
  test('a code host’s sha256=<hex> passes, in either case of hex', () => {
    assert.equal(reason(verifyDelivery(hex, SECRET, body, githubHeader(SECRET, body), NOW)), 'ok');
    const upper = `sha256=${githubHeader(SECRET, body).slice(7).toUpperCase()}`;
    assert.equal(reason(verifyDelivery(hex, SECRET, body, upper, NOW)), 'ok');
    assert.equal(signDelivery(hex, SECRET, body, NOW), githubHeader(SECRET, body));
  });
  test('tampered body, wrong secret, one flipped digit: signature_mismatch; no prefix, a short digest: malformed; none: missing', () => {
    const tampered = Buffer.concat([body, Buffer.from(' ')]);
    assert.equal(
      reason(verifyDelivery(hex, SECRET, tampered, githubHeader(SECRET, body), NOW)),
      'signature_mismatch',
    );
    assert.equal(
      reason(verifyDelivery(hex, SECRET, body, githubHeader('wrong', body), NOW)),
      'signature_mismatch',
    );
    const good = githubHeader(SECRET, body);
    const flipped = good.slice(0, -1) + (good.endsWith('0') ? '1' : '0');
    assert.equal(reason(verifyDelivery(hex, SECRET, body, flipped, NOW)), 'signature_mismatch');
    assert.equal(reason(verifyDelivery(hex, SECRET, body, good.slice(7), NOW)), 'signature_malformed');
    assert.equal(reason(verifyDelivery(hex, SECRET, body, good.slice(0, -2), NOW)), 'signature_malformed');
    assert.equal(reason(verifyDelivery(hex, SECRET, body, undefined, NOW)), 'signature_missing');
  });
  test('a base64 digest (standard or url-safe) passes; another body’s does not', () => {
    const d = createHmac('sha256', SECRET).update(body).digest();
    assert.equal(reason(verifyDelivery(b64, SECRET, body, d.toString('base64'), NOW)), 'ok');
    assert.equal(reason(verifyDelivery(b64, SECRET, body, d.toString('base64url'), NOW)), 'ok');
    const other = createHmac('sha256', SECRET).update('{}').digest('base64');
    assert.equal(reason(verifyDelivery(b64, SECRET, body, other, NOW)), 'signature_mismatch');
    assert.equal(reason(verifyDelivery(b64, SECRET, body, 'bm90IGEgZGlnZXN0', NOW)), 'signature_malformed');
  });
});

describe('shared-secret', () => {
  test('the secret passes; another value, a prefix of it, or nothing is refused', () => {
    assert.equal(reason(verifyDelivery(shared, SECRET, body, SECRET, NOW)), 'ok');
    assert.equal(reason(verifyDelivery(shared, SECRET, body, `${SECRET}x`, NOW)), 'signature_mismatch');
    assert.equal(reason(verifyDelivery(shared, SECRET, body, SECRET.slice(0, 5), NOW)), 'signature_mismatch');
    assert.equal(reason(verifyDelivery(shared, SECRET, body, undefined, NOW)), 'signature_missing');
  });
});

test('refusals never echo the secret or the expected digest', () => {
  const expected = createHmac('sha256', SECRET).update(body).digest('hex');
  for (const [auth, h] of [
    [hex, githubHeader('wrong', body)],
    [timestamped, stripeHeader('wrong', body, NOW)],
    [shared, 'nope'],
  ] as const) {
    const r = verifyDelivery(auth, SECRET, body, h, NOW);
    assert.equal(r.ok, false);
    const text = JSON.stringify(r);
    assert.doesNotMatch(text, new RegExp(SECRET));
    assert.doesNotMatch(text, new RegExp(expected));
  }
});

test('digests are compared with crypto.timingSafeEqual, never with === on text', () => {
  const src = readFileSync(new URL('./verify-delivery.ts', import.meta.url), 'utf8');
  assert.match(src, /timingSafeEqual\(given, expected\)/);
  assert.doesNotMatch(src, /digest\('hex'\)\s*===|===\s*digest|\.equals\(/);
});
