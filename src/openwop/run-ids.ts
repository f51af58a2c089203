/**
 * Run ids on the OpenWOP wire. A Keel run id is a digest (`sha256:<hex>`); OpenWOP shows its hex
 * part: bare on `/v1` (`<hex>`) and tenant-bound on v2 (`<tenant>/<hex>`). In a URL path a bound
 * id is one segment under the `~` projection (identity.md §5, RFC 0184): every byte outside
 * `[A-Za-z0-9._-]` becomes `~` and two upper-case hex digits (`acme/9f…` travels as `acme~2F9f…`);
 * the percent form `encodeURIComponent` produces (`acme%2F9f…`) is accepted too. A `~` that does
 * not introduce two hex digits, or a broken percent escape, is malformed input (400), never "no
 * such run".
 */

const HEX = /^[0-9a-f]{64}$/;
const PASSTHROUGH = /^[A-Za-z0-9._-]$/;
const ALL_PASSTHROUGH = /^[A-Za-z0-9._-]*$/;
const ASCII_NO_TILDE = /^[ -}]*$/;

export type Major = 1 | 2;

/** The id a response of `major` names the run by. */
export function wireRunId(runId: string, tenant: string, major: Major): string {
  const hex = runId.startsWith('sha256:') ? runId.slice('sha256:'.length) : runId;
  return major === 1 ? hex : `${tenant}/${hex}`;
}

/** One path segment for an id: the `~` projection, applied once. */
export function projectId(id: string): string {
  if (ALL_PASSTHROUGH.test(id)) return id;
  let out = '';
  for (const byte of new TextEncoder().encode(id)) {
    const ch = String.fromCharCode(byte);
    out += byte < 0x80 && PASSTHROUGH.test(ch) ? ch : `~${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The id a `~`-projected segment carries; undefined when a `~` does not introduce two hex digits. */
export function unprojectId(segment: string): string | undefined {
  // Printable ASCII without `~`: the segment is itself.
  if (ASCII_NO_TILDE.test(segment)) return segment;
  const bytes: number[] = [];
  for (let i = 0; i < segment.length; ) {
    if (segment[i] === '~') {
      const hex = segment.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return undefined;
      bytes.push(Number.parseInt(hex, 16));
      i += 3;
    } else {
      const cp = segment.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      bytes.push(...new TextEncoder().encode(ch));
      i += ch.length;
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes));
  } catch {
    return undefined;
  }
}

/** The id a URL path of `major` names the run by (a bound id projected into one segment). */
export function pathRunId(runId: string, tenant: string, major: Major): string {
  return projectId(wireRunId(runId, tenant, major));
}

export type ParsedRunId =
  | { readonly ok: true; readonly runId: string }
  | { readonly ok: false; readonly reason: 'tenant_mismatch' | 'malformed' | 'unknown' };

/**
 * Reads a run id from a raw (still encoded) path segment, for the caller's tenant: the percent
 * form when the segment has a `%`, else the `~` projection. A bound id naming another tenant is a
 * mismatch whether or not such a run exists, so the answer reveals nothing; a bare id resolves in
 * the caller's tenant (the v1 overlap). `malformed`: the encoding itself is broken (400);
 * `unknown`: well-formed, but no id Keel could have minted (404).
 */
export function parseRunId(rawSegment: string, tenant: string): ParsedRunId {
  let s: string | undefined;
  if (rawSegment.includes('%')) {
    try {
      s = decodeURIComponent(rawSegment);
    } catch {
      s = undefined;
    }
  } else s = unprojectId(rawSegment);
  if (s === undefined) return { ok: false, reason: 'malformed' };
  const slash = s.indexOf('/');
  let hex = s;
  if (slash >= 0) {
    if (s.slice(0, slash) !== tenant) return { ok: false, reason: 'tenant_mismatch' };
    hex = s.slice(slash + 1);
  }
  if (hex.startsWith('sha256:')) hex = hex.slice('sha256:'.length);
  return HEX.test(hex) ? { ok: true, runId: `sha256:${hex}` } : { ok: false, reason: 'unknown' };
}
