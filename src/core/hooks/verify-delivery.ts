/**
 * Verifying a delivery's authentication over its raw bytes, in the schemes hooks declare
 * (hook-spec.ts): an HMAC-SHA256 digest header (hex or base64, after an optional prefix), a
 * timestamped `t=<unix seconds>,v1=<hex>` header signing `<t>.<body>` within a tolerance window,
 * or a shared-secret header. Every comparison is constant-time (`timingSafeEqual` over digests of
 * equal length); a refusal says which check failed, never what was expected. `now` is handed in:
 * nothing here reads a clock, and the secret is never returned or echoed.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { HookAuth } from './hook-spec.ts';

/** Why a delivery's authentication was refused. */
export const AUTH_REFUSALS = [
  'signature_missing',
  'signature_malformed',
  'signature_mismatch',
  'timestamp_stale',
  'timestamp_future',
] as const;
export type AuthRefusal = (typeof AUTH_REFUSALS)[number];

export type AuthCheck =
  | { readonly ok: true; readonly timestamp?: number }
  | { readonly ok: false; readonly reason: AuthRefusal; readonly message: string };

const hmac = (secret: string, ...parts: (string | Uint8Array)[]) => {
  const h = createHmac('sha256', secret);
  for (const p of parts) h.update(p);
  return h.digest();
};

/** Constant-time equality of two 32-byte digests (false for any other length, in constant time too). */
function sameDigest(given: Buffer, expected: Buffer): boolean {
  if (given.length !== expected.length) {
    timingSafeEqual(expected, expected);
    return false;
  }
  return timingSafeEqual(given, expected);
}

const HEX = /^[0-9a-fA-F]{64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{43}=|[A-Za-z0-9_-]{43})$/;

const refuse = (reason: AuthRefusal, message: string): AuthCheck => ({ ok: false, reason, message });

/**
 * Checks `body` against `auth` with `secret`; `header` is the value of `auth.header` (undefined
 * when absent) and `nowSeconds` the receiving time in Unix seconds.
 */
export function verifyDelivery(
  auth: HookAuth,
  secret: string,
  body: Uint8Array,
  header: string | undefined,
  nowSeconds: number,
): AuthCheck {
  const h = header?.trim();
  if (h === undefined || h === '') return refuse('signature_missing', `no ${auth.header} header`);
  if (auth.scheme === 'shared-secret') {
    // Hashed first: equal lengths for timingSafeEqual, and nothing learnt from the secret's length.
    const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest();
    return sameDigest(sha(h), sha(secret))
      ? { ok: true }
      : refuse('signature_mismatch', `${auth.header} does not hold the hook's secret`);
  }
  if (auth.scheme === 'hmac-sha256') {
    if (!h.startsWith(auth.prefix))
      return refuse(
        'signature_malformed',
        `${auth.header}: expected ${auth.prefix ? `"${auth.prefix}" then ` : ''}a ${auth.encoding} digest`,
      );
    const digest = h.slice(auth.prefix.length);
    const ok = auth.encoding === 'hex' ? HEX.test(digest) : BASE64.test(digest);
    if (!ok)
      return refuse(
        'signature_malformed',
        `${auth.header}: expected a ${auth.encoding} HMAC-SHA256 digest${auth.prefix ? ` after "${auth.prefix}"` : ''}`,
      );
    const given = Buffer.from(
      digest,
      auth.encoding === 'hex' ? 'hex' : digest.includes('=') ? 'base64' : 'base64url',
    );
    return sameDigest(given, hmac(secret, body))
      ? { ok: true }
      : refuse('signature_mismatch', `${auth.header}: the signature does not match the body`);
  }
  // t=<seconds>,v1=<hex>[,v1=<hex>...]; other elements (v0=, a scheme of another version) are ignored.
  let t: string | undefined;
  const v1: Buffer[] = [];
  for (const item of h.split(',')) {
    const eq = item.indexOf('=');
    const k = item.slice(0, eq).trim();
    const v = item.slice(eq + 1).trim();
    if (eq < 0) continue;
    if (k === 't') t = v;
    else if (k === 'v1' && HEX.test(v)) v1.push(Buffer.from(v, 'hex'));
  }
  if (t === undefined || !/^[0-9]{1,12}$/.test(t))
    return refuse('signature_malformed', `${auth.header}: expected t=<unix seconds>,v1=<hex digest>`);
  if (v1.length === 0) return refuse('signature_missing', `${auth.header}: no v1=<hex digest> in it`);
  const expected = hmac(secret, `${t}.`, body);
  // Every candidate is compared (no early exit), so the time taken says nothing about which matched.
  let match = false;
  for (const given of v1) match = sameDigest(given, expected) || match;
  if (!match) return refuse('signature_mismatch', `${auth.header}: no v1 signature matches the body`);
  const ts = Number(t);
  if (ts < nowSeconds - auth.toleranceSeconds)
    return refuse(
      'timestamp_stale',
      `${auth.header}: signed at ${t}, more than ${auth.toleranceSeconds} s ago (a replayed delivery?)`,
    );
  if (ts > nowSeconds + auth.toleranceSeconds)
    return refuse(
      'timestamp_future',
      `${auth.header}: signed at ${t}, more than ${auth.toleranceSeconds} s from now`,
    );
  return { ok: true, timestamp: ts };
}

/**
 * The header value a sender would send for `body` (what tests, the bench and `keel hooks test`
 * samples use): the same schemes, written from the senders' documented forms.
 */
export function signDelivery(
  auth: HookAuth,
  secret: string,
  body: Uint8Array | string,
  nowSeconds: number,
): string {
  if (auth.scheme === 'shared-secret') return secret;
  if (auth.scheme === 'hmac-sha256') return `${auth.prefix}${hmac(secret, body).toString(auth.encoding)}`;
  const t = String(Math.floor(nowSeconds));
  return `t=${t},v1=${hmac(secret, `${t}.`, body).toString('hex')}`;
}
