/**
 * Run ids on the OpenWOP wire. A Keel run id is a digest (`sha256:<hex>`); OpenWOP shows its hex
 * part: bare on `/v1` (`<hex>`) and tenant-bound on v2 (`<tenant>/<hex>`, projected into a path as
 * `<tenant>~2F<hex>`; the `%2F` form that `encodeURIComponent` produces is accepted too).
 */

const HEX = /^[0-9a-f]{64}$/;

export type Major = 1 | 2;

/** The id a response of `major` names the run by. */
export function wireRunId(runId: string, tenant: string, major: Major): string {
  const hex = runId.startsWith('sha256:') ? runId.slice('sha256:'.length) : runId;
  return major === 1 ? hex : `${tenant}/${hex}`;
}

/** The id a URL path of `major` names the run by (the slash of a bound id projected as `~2F`). */
export function pathRunId(runId: string, tenant: string, major: Major): string {
  return wireRunId(runId, tenant, major).replace('/', '~2F');
}

export type ParsedRunId =
  | { readonly ok: true; readonly runId: string }
  | { readonly ok: false; readonly reason: 'tenant_mismatch' | 'malformed' };

/**
 * Reads a run id from a raw (still percent-encoded) path segment, for the caller's tenant. A bound
 * id naming another tenant is a mismatch whether or not such a run exists, so the answer reveals
 * nothing; a bare id resolves in the caller's tenant (the v1 overlap).
 */
export function parseRunId(rawSegment: string, tenant: string): ParsedRunId {
  let s: string;
  try {
    s = decodeURIComponent(rawSegment.replace(/~2F/gi, '%2F'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const slash = s.indexOf('/');
  let hex = s;
  if (slash >= 0) {
    if (s.slice(0, slash) !== tenant) return { ok: false, reason: 'tenant_mismatch' };
    hex = s.slice(slash + 1);
  }
  if (hex.startsWith('sha256:')) hex = hex.slice('sha256:'.length);
  return HEX.test(hex) ? { ok: true, runId: `sha256:${hex}` } : { ok: false, reason: 'malformed' };
}
