/**
 * OpenWOP version negotiation: which major a request is served under, and the refusals.
 * `/v1/...` paths are major 1 (a header naming another major is `400 protocol_version_mismatch`);
 * bare paths follow the `OpenWOP-Version` header (an unlisted major is `406
 * protocol_version_unsupported`), and without one discovery is served as the preferred major (1,
 * during the overlap) and every other bare path as 2.
 */

import { PROTOCOL_VERSIONS } from '../openwop/discovery.ts';
import { ProtocolError } from '../openwop/protocol-error.ts';
import type { Major } from '../openwop/run-ids.ts';

const LISTED: readonly number[] = [1, 2];

export function negotiate(path: string, header: string | undefined): Major {
  const v1Path = path === '/v1' || path.startsWith('/v1/');
  const requested =
    header === undefined || header.trim() === ''
      ? undefined
      : Number.parseInt(header.trim().split('.')[0]!, 10);
  if (
    header !== undefined &&
    header.trim() !== '' &&
    (!Number.isInteger(requested) || !LISTED.includes(requested!))
  )
    throw new ProtocolError(
      'protocol_version_unsupported',
      `OpenWOP-Version ${JSON.stringify(header)} is not served here`,
      {
        protocolVersions: [...PROTOCOL_VERSIONS],
      },
    );
  if (v1Path) {
    if (requested !== undefined && requested !== 1)
      throw new ProtocolError(
        'protocol_version_mismatch',
        `a /v1 path is served as major 1, but OpenWOP-Version names ${header}`,
        {
          protocolVersions: [...PROTOCOL_VERSIONS],
        },
      );
    return 1;
  }
  if (requested !== undefined) return requested as Major;
  return path === '/.well-known/openwop' ? 1 : 2;
}

export function versionHeader(major: Major): string {
  return major === 1 ? '1.0' : '2.0';
}

/**
 * The `OpenWOP-Version` a refusal made before routing (e.g. a body over the size limit) carries on
 * a protocol path: the major the request would be served under, or the path's default major when
 * its header is refused too. None on the Keel API (`/api/...`, `/openapi.json`).
 */
export function refusalVersion(path: string, header: string | undefined): string | undefined {
  if (path === '/api' || path.startsWith('/api/') || path === '/openapi.json') return undefined;
  try {
    return versionHeader(negotiate(path, header));
  } catch {
    return versionHeader(negotiate(path, undefined));
  }
}
