/**
 * Bearer authentication: an API key resolves to its tenant and subject (keys are stored hashed;
 * `keel keys create`). It runs before any route reads anything, so a 401 never says whether a run
 * exists, and every read and write after it names the caller's tenant.
 */
import { noteTenant, type RequestNotes, tieNotes } from '../app/index.ts';
import type { Keel } from '../app/keel.ts';
import type { Principal } from '../openwop/host.ts';
import { ProtocolError } from '../openwop/protocol-error.ts';

/** `notes`: the request's (observe-requests.ts), which learn the tenant and follow the principal. */
export async function authenticate(
  keel: Keel,
  authorization: string | undefined,
  notes?: RequestNotes,
): Promise<Principal> {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!m)
    throw new ProtocolError(
      'unauthenticated',
      'send Authorization: Bearer <API key> (create one with `keel keys create`)',
    );
  const key = await keel.keys.resolve(m[1]!);
  if (!key) throw new ProtocolError('unauthenticated', 'the API key is not valid or was revoked');
  noteTenant(notes, key.tenant);
  const p: Principal = { tenant: key.tenant, subject: key.subject, kind: key.kind };
  if (notes) tieNotes(p, notes);
  return p;
}
