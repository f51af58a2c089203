/** Keel API, writs: inspect one, revoke one, and the tenant's stored trusted keys. */
import * as z from 'zod';
import { type KeelRoute, Note, ok, route, WritValue } from './route.ts';

export const WRIT_ROUTES: readonly KeelRoute[] = [
  route({
    method: 'post',
    path: '/api/writs/inspect',
    operationId: 'inspectWrit',
    summary: 'Verify a writ against the tenant’s trusted keys (configured and stored) and revocations',
    tag: 'writs',
    auth: true,
    body: z.strictObject({ writ: WritValue }),
    responses: {
      200: '{hash, verified, refusal?: {code, link, message}, revoked?, writ, chain: [{id, hash, issuer, depth}]}',
    },
    async handle({ keel, p, body }) {
      return ok(await keel.writs.inspect(p.tenant, body.writ));
    },
  }),
  route({
    method: 'post',
    path: '/api/writs/revoke',
    operationId: 'revokeWrit',
    summary: 'Revoke a writ (by hash, or the writ itself): it and every writ derived from it refuse',
    tag: 'writs',
    auth: true,
    body: z
      .strictObject({
        hash: z.string().min(1).max(100).optional().describe('the writ hash, sha256:<64 hex>'),
        writ: WritValue.optional(),
        reason: Note.optional(),
      })
      .refine((b) => (b.hash === undefined) !== (b.writ === undefined), {
        message: 'expected exactly one of hash and writ',
      }),
    responses: {
      201: '{created: true, record: {tenant, hash, by, at, reason?}}',
      200: '{created: false, record}: revoked before; the first revocation stands',
    },
    async handle({ keel, p, body }) {
      const r = await keel.writs.revoke(p.tenant, body.hash ?? body.writ, p.subject, body.reason);
      return ok(r, r.created ? 201 : 200);
    },
  }),
  route({
    method: 'get',
    path: '/api/writs/trusted-keys',
    operationId: 'listTrustedKeys',
    summary: 'The tenant’s stored trusted writ keys, retired ones included',
    tag: 'writs',
    auth: true,
    responses: { 200: '{keys: [{tenant, keyId, publicKeyPem, addedBy, addedAt, retiredAt?}]}' },
    async handle({ keel, p }) {
      return ok({ keys: await keel.writs.trusted(p.tenant) });
    },
  }),
  route({
    method: 'post',
    path: '/api/writs/trusted-keys',
    operationId: 'trustKey',
    summary: 'Trust an Ed25519 public key (SPKI PEM) to sign the tenant’s writs',
    tag: 'writs',
    auth: true,
    body: z.strictObject({ publicKeyPem: z.string().min(1).max(4000) }),
    responses: {
      201: '{created: true, record}',
      200: '{created: false, record}: the key was stored before (a retired key stays retired)',
    },
    async handle({ keel, p, body }) {
      const r = await keel.writs.trust(p.tenant, body.publicKeyPem, p.subject);
      return ok(r, r.created ? 201 : 200);
    },
  }),
];
